package dev.mailqueue.account.control;

import jakarta.inject.Inject;
import dev.mailqueue.server.control.QueueDatabase;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import dev.mailqueue.queue.control.SqlTime;
import dev.mailqueue.queue.control.StoreException;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Enforces the accounts' rate limits ({@link RateRules}) over every claimer of every server: the state
 * lives in the database (SMTP_ACCOUNT_RATE, SMTP_ACCOUNT_SLOT), and each decision is made in a short
 * transaction of its own under the account row's lock ({@code UPDATE ... SET LOCK_VERSION =
 * LOCK_VERSION + 1}, an exclusive row lock on every database), committed before the mail is sent.
 * Accounts without limits never touch the database.
 *
 * <p>Locks are always taken account row first, then slot rows, so two transactions never wait for
 * each other in a cycle.
 */
@Stateless
@TransactionAttribute(TransactionAttributeType.REQUIRES_NEW) // decide and commit before sending
public class AccountThrottle {

    private static final Instant LONG_AGO = Instant.parse("2000-01-01T00:00:00Z");

    @Inject
    @QueueDatabase
    DataSource dataSource;

    /** For tests outside a container: each call then runs in whatever transaction the data source gives. */
    public static AccountThrottle on(DataSource dataSource) {
        AccountThrottle throttle = new AccountThrottle();
        throttle.dataSource = dataSource;
        return throttle;
    }

    /**
     * Takes leave to send one mail through the account now: a per-minute slot (held as in flight) and
     * one of the day's sends, or neither.
     *
     * @param account the account to send through
     * @param now     UTC now
     * @return a granted permit, or a refusal with retry times
     * @throws StoreException when the database fails, e.g. a lock timeout, or two servers created
     *                              the account's row at the same moment (the caller tries again later)
     */
    public SendPermit acquire(Account account, Instant now) {
        if (!account.isRateLimited()) {
            return SendPermit.unlimited(account.name());
        }
        try (Connection c = dataSource.getConnection()) {
            State state = lock(c, account.name(), now);
            Instant today = RateRules.dayStart(now);
            int dayCount = today.equals(state.dayStart) ? state.dayCount : 0;
            if (account.perDay() > 0 && dayCount >= account.perDay()) {
                return new SendPermit(account.name(), false, -1, today, List.of(RateRules.nextDay(now)),
                        account.window());
            }
            int slot = -1;
            if (account.perMinute() > 0) {
                RateRules.Slowed slowed = RateRules.recover(account.perMinute(), state.slowed, now, account.window());
                int limit = slowed == null ? account.perMinute() : slowed.limit();
                List<Instant> freeAt = slots(c, account, now);
                slot = RateRules.freeSlot(limit, freeAt, now);
                writeSlowed(c, account.name(), slowed);
                if (slot < 0) {
                    return new SendPermit(account.name(), false, -1, null,
                            RateRules.retryTimes(limit, freeAt, now, account.window()), account.window());
                }
                setFreeAt(c, account.name(), slot, now.plus(account.window()).plus(RateRules.IN_FLIGHT));
            }
            try (PreparedStatement s = c.prepareStatement(
                    "UPDATE SMTP_ACCOUNT_RATE SET DAY_START = ?, DAY_COUNT = ? WHERE SMTP_ACCOUNT = ?")) {
                SqlTime.set(s, 1, today);
                s.setInt(2, dayCount + 1);
                s.setString(3, account.name());
                s.executeUpdate();
            }
            return new SendPermit(account.name(), true, slot, account.perDay() > 0 ? today : null, List.of(),
                    account.window());
        } catch (SQLException e) {
            throw new StoreException("could not take a send slot of account " + account.name(), e);
        }
    }

    /**
     * How many mails the account may send now, read without taking anything or locking a row, for the claim
     * to take no more of its mail than that ({@code ClaimStore}): the free slots of its window (under a
     * slow-down's lower limit) and what is left of the day's sends, whichever is fewer. Other claimers may take
     * the same slots meanwhile; {@link #acquire} decides for each mail.
     *
     * @param account the account
     * @param now     UTC now
     * @return sends allowed now, 0 or more; {@link Integer#MAX_VALUE} for an account without limits
     * @throws StoreException when the database fails
     */
    public int available(Account account, Instant now) {
        if (!account.isRateLimited()) {
            return Integer.MAX_VALUE;
        }
        try (Connection c = dataSource.getConnection()) {
            State state = read(c, account.name());
            if (state == null) {
                state = new State(null, 0, null); // the account has never sent
            }
            int left = Integer.MAX_VALUE;
            if (account.perDay() > 0) {
                left = account.perDay() - (RateRules.dayStart(now).equals(state.dayStart) ? state.dayCount : 0);
            }
            if (account.perMinute() > 0) {
                RateRules.Slowed inForce = RateRules.recover(account.perMinute(), state.slowed, now, account.window());
                int limit = inForce == null ? account.perMinute() : inForce.limit();
                List<Instant> freeAt = new ArrayList<>();
                for (Instant t : readSlots(c, account)) {
                    freeAt.add(t == null ? LONG_AGO : t); // a slot without its row yet is free
                }
                left = Math.min(left, RateRules.freeSlots(limit, freeAt, now));
            }
            return Math.max(0, left);
        } catch (SQLException e) {
            throw new StoreException("could not read the rate state of account " + account.name(), e);
        }
    }

    /**
     * The send reached the server (it replied, whatever it said): its slot stays taken until
     * the account's window ({@link SendPermit#window}, 60 s unless configured) after {@code finishedAt}.
     *
     * @param permit     a granted permit
     * @param finishedAt UTC time of the server's last reply, or of the failure
     * @throws StoreException when the database fails
     */
    public void complete(SendPermit permit, Instant finishedAt) {
        if (permit.slot() < 0) {
            return;
        }
        try (Connection c = dataSource.getConnection()) {
            setFreeAt(c, permit.account(), permit.slot(), finishedAt.plus(permit.window()));
        } catch (SQLException e) {
            throw new StoreException("could not settle the send slot of account " + permit.account(), e);
        }
    }

    /**
     * The send never reached the server (no connection): its slot and its count for the day are given back.
     *
     * @param permit a granted permit
     * @param now    UTC now
     * @throws StoreException when the database fails
     */
    public void release(SendPermit permit, Instant now) {
        if (!permit.holdsState()) {
            return;
        }
        try (Connection c = dataSource.getConnection()) {
            if (permit.dayStart() != null) {
                try (PreparedStatement s = c.prepareStatement("UPDATE SMTP_ACCOUNT_RATE SET DAY_COUNT = DAY_COUNT - 1"
                        + " WHERE SMTP_ACCOUNT = ? AND DAY_START = ? AND DAY_COUNT > 0")) {
                    s.setString(1, permit.account());
                    SqlTime.set(s, 2, permit.dayStart());
                    s.executeUpdate();
                }
            }
            if (permit.slot() >= 0) {
                setFreeAt(c, permit.account(), permit.slot(), now);
            }
        } catch (SQLException e) {
            throw new StoreException("could not give back the send slot of account " + permit.account(), e);
        }
    }

    /**
     * The account's server said to slow down (421 or 4.7.x): halves its per-minute limit as
     * {@link RateRules#slowDown} says. Nothing happens to an account without a per-minute limit.
     *
     * @param account the account whose server replied so
     * @param now     UTC now
     * @return the per-minute limit now in force, 0 when the account has no per-minute limit
     * @throws StoreException when the database fails
     */
    public int slowDown(Account account, Instant now) {
        if (account.perMinute() <= 0) {
            return 0;
        }
        try (Connection c = dataSource.getConnection()) {
            State state = lock(c, account.name(), now);
            RateRules.Slowed slowed = RateRules.slowDown(account.perMinute(),
                    RateRules.recover(account.perMinute(), state.slowed, now, account.window()), now);
            writeSlowed(c, account.name(), slowed);
            return slowed.limit();
        } catch (SQLException e) {
            throw new StoreException("could not slow down account " + account.name(), e);
        }
    }

    private record State(Instant dayStart, int dayCount, RateRules.Slowed slowed) {
    }

    /** Locks the account's row, creating it on first use, and reads it. */
    private static State lock(Connection c, String account, Instant now) throws SQLException {
        int locked;
        try (PreparedStatement s = c.prepareStatement(
                "UPDATE SMTP_ACCOUNT_RATE SET LOCK_VERSION = LOCK_VERSION + 1 WHERE SMTP_ACCOUNT = ?")) {
            s.setString(1, account);
            locked = s.executeUpdate();
        }
        if (locked == 0) {
            // A second server doing the same at the same moment fails on the primary key; its mail is
            // deferred briefly and finds the row next time.
            try (PreparedStatement s = c.prepareStatement("INSERT INTO SMTP_ACCOUNT_RATE"
                    + " (SMTP_ACCOUNT, LOCK_VERSION, DAY_START, DAY_COUNT) VALUES (?, 0, ?, 0)")) {
                s.setString(1, account);
                SqlTime.set(s, 2, RateRules.dayStart(now));
                s.executeUpdate();
            }
        }
        return read(c, account);
    }

    /** @return the account's row, or null when it has none yet */
    private static State read(Connection c, String account) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT DAY_START, DAY_COUNT, SLOWED_LIMIT, SLOWED_AT"
                + " FROM SMTP_ACCOUNT_RATE WHERE SMTP_ACCOUNT = ?")) {
            s.setString(1, account);
            try (ResultSet r = s.executeQuery()) {
                if (!r.next()) {
                    return null;
                }
                int slowedLimit = r.getInt(3);
                boolean slowed = !r.wasNull();
                Instant slowedAt = SqlTime.get(r, 4);
                return new State(SqlTime.get(r, 1), r.getInt(2),
                        slowed && slowedAt != null ? new RateRules.Slowed(slowedLimit, slowedAt) : null);
            }
        }
    }

    /** @return free-from times of slots 0 .. perMinute - 1, creating missing slot rows as free */
    private static List<Instant> slots(Connection c, Account account, Instant now) throws SQLException {
        Instant[] freeAt = readSlots(c, account);
        List<Instant> result = new ArrayList<>(freeAt.length);
        for (int slot = 0; slot < freeAt.length; slot++) {
            if (freeAt[slot] == null) {
                try (PreparedStatement s = c.prepareStatement(
                        "INSERT INTO SMTP_ACCOUNT_SLOT (SMTP_ACCOUNT, SLOT, FREE_AT) VALUES (?, ?, ?)")) {
                    s.setString(1, account.name());
                    s.setInt(2, slot);
                    SqlTime.set(s, 3, LONG_AGO);
                    s.executeUpdate();
                }
                freeAt[slot] = LONG_AGO;
            }
            result.add(freeAt[slot]);
        }
        return result;
    }

    /** @return free-from times of slots 0 .. perMinute - 1, null for a slot without its row yet */
    private static Instant[] readSlots(Connection c, Account account) throws SQLException {
        Instant[] freeAt = new Instant[account.perMinute()];
        try (PreparedStatement s = c.prepareStatement(
                "SELECT SLOT, FREE_AT FROM SMTP_ACCOUNT_SLOT WHERE SMTP_ACCOUNT = ? AND SLOT < ?")) {
            s.setString(1, account.name());
            s.setInt(2, account.perMinute());
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    freeAt[r.getInt(1)] = SqlTime.get(r, 2);
                }
            }
        }
        return freeAt;
    }

    private static void setFreeAt(Connection c, String account, int slot, Instant freeAt) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(
                "UPDATE SMTP_ACCOUNT_SLOT SET FREE_AT = ? WHERE SMTP_ACCOUNT = ? AND SLOT = ?")) {
            SqlTime.set(s, 1, freeAt);
            s.setString(2, account);
            s.setInt(3, slot);
            s.executeUpdate();
        }
    }

    private static void writeSlowed(Connection c, String account, RateRules.Slowed slowed) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(
                "UPDATE SMTP_ACCOUNT_RATE SET SLOWED_LIMIT = ?, SLOWED_AT = ? WHERE SMTP_ACCOUNT = ?")) {
            if (slowed == null) {
                s.setNull(1, java.sql.Types.INTEGER);
                s.setNull(2, java.sql.Types.TIMESTAMP);
            } else {
                s.setInt(1, slowed.limit());
                SqlTime.set(s, 2, slowed.since());
            }
            s.setString(3, account);
            s.executeUpdate();
        }
    }
}
