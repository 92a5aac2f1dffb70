package dev.mailqueue.queue.control;

import dev.mailqueue.api.EventType;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.queue.entity.AttemptOutcome;
import dev.mailqueue.schema.control.DatabaseKind;
import dev.mailqueue.settings.control.InDoubtPolicy;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.logging.Logger;

/**
 * The claimers' leases (MAIL_CLAIMER) on a connection of the caller's transaction: whether one is still there, their
 * renewal, and taking back the mail of claimers whose lease ran out. {@link ClaimStore} opens the connections.
 */
final class Leases {

    private static final Logger LOG = Logger.getLogger(Leases.class.getName());

    private Leases() {
    }

    /**
     * Locks a claimer's queue rows before its MAIL_CLAIMER row, the order in which readers of the view MAIL_STATE
     * take them (a mail's queue row, then its claimer). On Derby, whose readers lock each row they read (READ
     * COMMITTED) and hold the queue row while they look up its claimer, taking back in the other order deadlocked
     * with a reader (GET /api/mails/{id} answered 500). Writers that finish mails take the same order (queue rows,
     * then the claimer row), and on Derby claims, the only callers of this, run one at a time in the JVM.
     * Databases with SKIP LOCKED lock the claimer first in the sweep's select and have readers that take no locks.
     */
    private static void lockQueueRows(Connection c, Lease dead) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("UPDATE MAIL_QUEUE SET CLAIM_NO = CLAIM_NO WHERE CLAIMER = ?")) {
            s.setLong(1, dead.claimer());
            s.executeUpdate();
        }
    }

    /** @return true while the claimer's MAIL_CLAIMER row is there: its lease was not taken back */
    static boolean exists(Connection c, Lease lease) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT ID FROM MAIL_CLAIMER WHERE ID = ?")) {
            s.setLong(1, lease.claimer());
            try (ResultSet r = s.executeQuery()) {
                return r.next();
            }
        }
    }

    /**
     * Renews claimers' leases on the caller's connection ({@link ClaimStore#renew}).
     *
     * @return those renewed
     */
    static Set<Long> renew(Connection c, Collection<Long> claimers, Instant until) throws SQLException {
        if (claimers.isEmpty()) {
            return Set.of();
        }
        List<Long> ids = List.copyOf(claimers);
        try (PreparedStatement s = c.prepareStatement("UPDATE MAIL_CLAIMER SET EXPIRES_AT = ? WHERE ID IN ("
                + Sql.marks(ids.size()) + ")")) {
            SqlTime.set(s, 1, until);
            for (int i = 0; i < ids.size(); i++) {
                s.setLong(i + 2, ids.get(i));
            }
            if (s.executeUpdate() == ids.size()) {
                return Set.copyOf(ids);
            }
        }
        Set<Long> renewed = new HashSet<>();
        try (PreparedStatement s = c.prepareStatement("SELECT ID FROM MAIL_CLAIMER WHERE ID IN ("
                + Sql.marks(ids.size()) + ")")) {
            for (int i = 0; i < ids.size(); i++) {
                s.setLong(i + 1, ids.get(i));
            }
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    renewed.add(r.getLong(1));
                }
            }
        }
        return renewed;
    }

    /**
     * Takes back the mail of every claimer whose lease ran out, on the caller's connection and in its transaction
     * ({@link ClaimStore#recover}).
     *
     * @return mails taken back
     */
    static int recover(Connection c, DatabaseKind d, String server, Instant now, InDoubtPolicy inDoubt) throws SQLException {
        List<Lease> expired = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement("SELECT ID, OWNER FROM MAIL_CLAIMER WHERE EXPIRES_AT < ?"
                + (d.skipsLocked() ? " FOR UPDATE SKIP LOCKED" : ""))) {
            SqlTime.set(s, 1, now);
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    expired.add(new Lease(r.getLong(1), r.getString(2)));
                }
            }
        }
        int taken = 0;
        List<AttemptLog.Row> log = new ArrayList<>();
        for (Lease dead : expired) {
            if (!d.skipsLocked()) {
                lockQueueRows(c, dead);
            }
            try (PreparedStatement s = c.prepareStatement("DELETE FROM MAIL_CLAIMER WHERE ID = ? AND EXPIRES_AT < ?")) {
                s.setLong(1, dead.claimer());
                SqlTime.set(s, 2, now);
                if (s.executeUpdate() == 0) {
                    continue; // renewed after all, or another server took it back first
                }
            }
            List<long[]> held = new ArrayList<>(); // mail id, attempts left
            try (PreparedStatement s = c.prepareStatement("SELECT MAIL_ID, ATTEMPTS_LEFT FROM MAIL_QUEUE WHERE CLAIMER = ?"
                    + " ORDER BY CLAIM_NO, PRIORITY DESC, CREATED_AT, MAIL_ID")) {
                s.setLong(1, dead.claimer());
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        held.add(new long[]{r.getLong(1), r.getLong(2)});
                    }
                }
            }
            if (held.isEmpty()) {
                continue;
            }
            ExpiredLease first = new ExpiredLease(held.get(0)[0], dead.owner(), true, (int) held.get(0)[1]);
            Transition t = Transition.afterLostLease(first, inDoubt, now);
            try (PreparedStatement s = c.prepareStatement(t.status() == MailStatus.QUEUED
                    ? "UPDATE MAIL_QUEUE SET CLAIMER = NULL, CLAIM_NO = NULL, ATTEMPTS_LEFT = ?, DUE_AT = ?, NOTE = NULL"
                    + " WHERE MAIL_ID = ? AND CLAIMER = ?"
                    : "DELETE FROM MAIL_QUEUE WHERE MAIL_ID = ? AND CLAIMER = ?")) {
                int i = 1;
                if (t.status() == MailStatus.QUEUED) {
                    s.setInt(i++, t.attemptsRemaining());
                    SqlTime.set(s, i++, t.notBefore());
                }
                s.setLong(i++, first.mailId());
                s.setLong(i, dead.claimer());
                s.executeUpdate();
            }
            String note = t.error();
            LOG.warning(() -> "Mail " + first.mailId() + ": " + note);
            EventType event = AttemptEvents.ofLostLease(first, t.status());
            log.add(new AttemptLog.Row(first.mailId(), now, now, dead.server(), dead.owner(),
                    AttemptOutcome.IN_DOUBT, null, null, note, null, null, t.status(), event, null,
                    event == EventType.DEFERRED ? t.notBefore() : null, List.of()));
            int rest;
            try (PreparedStatement s = c.prepareStatement("UPDATE MAIL_QUEUE SET CLAIMER = NULL, CLAIM_NO = NULL"
                    + " WHERE CLAIMER = ?")) {
                s.setLong(1, dead.claimer());
                rest = s.executeUpdate();
            }
            taken += 1 + rest;
            int count = rest;
            LOG.info(() -> "took back the mail of " + dead.owner() + ", whose lease ran out: mail " + first.mailId()
                    + " in doubt, " + count + " more never begun");
        }
        AttemptLog.insert(c, d, log);
        return taken;
    }
}
