package dev.mailqueue.queue.control;

import dev.mailqueue.api.MailLimits;
import dev.mailqueue.schema.control.DatabaseKind;
import dev.mailqueue.settings.control.InDoubtPolicy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Set;


/**
 * Claims due mail for claimers and reads what they need to send it; starts claimers' leases and takes back the
 * mail of claimers whose lease ran out. A claim writes one narrow row per mail it takes (MAIL_QUEUE.CLAIMER), never
 * the mail itself; every later change of a held mail is conditional on its claimer ({@link OutcomeStore}).
 */
@ApplicationScoped
public class ClaimStore {

    /** The longest text or HTML body, in characters, that a claim reads with the mail; longer ones are read when composed. */
    public static final int CLAIM_BODY_CHARS = ClaimedMail.CLAIM_BODY_CHARS;

    /** Claims of this JVM on a database that cannot skip locked rows run one at a time ({@link LeaseStrategy}). */
    private final Object jvmClaims = new Object();

    /** How a claim takes rows on the database, chosen on first use. */
    private volatile LeaseStrategy strategy;

    @Inject
    QueueTables tables;

    /**
     * @param tables the queue's tables, e.g. on a data source of a test
     * @return a store on them, for use outside a container
     */
    public static ClaimStore on(QueueTables tables) {
        ClaimStore store = new ClaimStore();
        store.tables = tables;
        return store;
    }

    /**
     * Starts a claimer's lease, in the caller's transaction.
     *
     * @param owner     the claimer's name in the log, e.g. {@code host/server#42}, at most 200 characters
     * @param now       now
     * @param expiresAt when the lease runs out unless renewed
     * @return the lease
     * @throws StoreException when the database fails
     */
    public Lease start(String owner, Instant now, Instant expiresAt) {
        try (Connection c = tables.connect();
             PreparedStatement s = c.prepareStatement("INSERT INTO MAIL_CLAIMER (OWNER, STARTED_AT, EXPIRES_AT)"
                     + " VALUES (?, ?, ?)", Statement.RETURN_GENERATED_KEYS)) {
            s.setString(1, owner);
            SqlTime.set(s, 2, now);
            SqlTime.set(s, 3, expiresAt);
            s.executeUpdate();
            try (ResultSet keys = s.getGeneratedKeys()) {
                keys.next();
                return new Lease(keys.getLong(1), owner);
            }
        } catch (SQLException e) {
            throw new StoreException("could not start the lease of " + owner, e);
        }
    }

    /**
     * How much work waits, for deciding how many claimers to start: free due mail a claim with this filter could
     * take now (none while the queue is paused; none of paused accounts and campaigns), and, when asked, mail held
     * by claimers whose lease ran out.
     *
     * @param now         now
     * @param max         stop counting at this many, 1 or more
     * @param withExpired true to count mail of claimers whose lease ran out too
     * @param accounts    whose mails a claim would take
     * @return the mails counted, each kind up to {@code max}
     * @throws StoreException when the database fails
     */
    public int countClaimable(Instant now, int max, boolean withExpired, AccountFilter accounts) {
        try (Connection c = tables.connect()) {
            DatabaseKind d = tables.kind(c);
            AccountFilter filter = accounts.pausing(Pauses.read(c));
            // On PostgreSQL in no order: a count needs none, and an order makes it sort every due row while the
            // table's statistics are stale (see LeaseStrategy.OneStatement#planForKeys). Elsewhere in the claim's
            // order, as OFFSET ... FETCH wants one on some databases.
            boolean anyOrder = d == DatabaseKind.POSTGRESQL;
            // Priority by priority, as a claim picks: each count reads one range of the claim index, due rows only.
            int due = 0;
            for (int p = MailLimits.PRIORITY_MAX; p >= MailLimits.PRIORITY_MIN && due < max && !filter.claimsNothing();
                 p--) {
                due += count(c, d.firstRows((anyOrder ? LeaseStrategy.DUE_UNORDERED : LeaseStrategy.DUE)
                        .formatted(filter.sql()), max - due), p, now, filter);
            }
            int expired = withExpired ? count(c, d.firstRows("SELECT q.MAIL_ID FROM MAIL_QUEUE q JOIN MAIL_CLAIMER c"
                    + " ON c.ID = q.CLAIMER WHERE c.EXPIRES_AT < ?" + (anyOrder ? "" : " ORDER BY q.MAIL_ID"), max), null,
                    now, null) : 0;
            return due + expired;
        } catch (SQLException e) {
            throw new StoreException("could not count the mail due", e);
        }
    }

    /** @return the rows {@code sql} returns; its {@code ?}s: the priority unless null, now, the filter's unless null */
    private static int count(Connection c, String sql, Integer priority, Instant now, AccountFilter filter)
            throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql)) {
            int i = 1;
            if (priority != null) {
                s.setInt(i++, priority);
            }
            SqlTime.set(s, i++, now);
            if (filter != null) {
                filter.bind(s, i);
            }
            int n = 0;
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    n++;
                }
            }
            return n;
        }
    }

    /**
     * What one claim took.
     *
     * @param mails     the mails now held by the claimer, in its send order (priority, then age)
     * @param takenBack mails of claimers whose lease had run out that this claim put back first
     * @param leaseHeld false when the claimer's lease was gone (taken back by a server that found it run out):
     *                  the claimer took nothing and must send nothing more
     */
    public record Claim(List<ClaimedMail> mails, int takenBack, boolean leaseHeld) {
    }

    /**
     * Claims due mail for one claimer, in the caller's transaction (which must commit before any mail is sent):
     * first, when asked, takes back the mail of claimers whose lease ran out ({@link #recover}); then renews the
     * claimer's own lease to {@code until}, or when {@code until} is null only reads that its lease is still there;
     * either fails when the lease is gone (then nothing is claimed: mail tagged with a claimer that no longer exists
     * would never come back); then takes the best free due mail (priority, then age) under a pessimistic row lock
     * ({@link LeaseStrategy}) and reads it.
     * <p>
     * A claim with no renewal writes nothing to MAIL_CLAIMER. It is for a claimer whose lease, as committed, still
     * runs well beyond now (more than half the lease time, as the caller decides): {@link #recover} deletes a lease
     * only once it has run out by the deleting server's clock, so between the read and the commit the lease cannot
     * go unless two servers' clocks disagree by that much, far more than the sixth of the lease time that the
     * claimers' fence already assumes.
     *
     * @param lease    the claimer
     * @param claimNo  which claim of this claimer it is, counting from 1: the claimer sends in claim order, then
     *                 in each claim's order, and the first mail of a dead claimer in that order is in doubt
     * @param server   this server, for the log of mail taken back
     * @param now      now
     * @param until    the claimer's lease runs until then once the claim commits; null to leave the lease as it
     *                 is (its claimer's lease still runs more than half the lease time beyond now)
     * @param limit    most mails to take, 1 or more
     * @param inDoubt  what becomes of a taken-back mail that may have been sent
     * @param accounts whose mails to claim; the claim narrows it by what is paused (the queue, accounts,
     *                 campaigns), read in one query on the claim's connection
     * @param recover  true to take back mail of claimers whose lease ran out first: a lease runs out only when its
     *                 claimer died, so a server looks for them once in a while ({@code ExpiredLeaseSweep}), not
     *                 with every claim
     * @return the claim
     * @throws StoreException when the database fails or a lock cannot be had
     */
    public Claim claim(Lease lease, int claimNo, String server, Instant now, Instant until, int limit,
                       InDoubtPolicy inDoubt, AccountFilter accounts, boolean recover) {
        try (Connection c = tables.connect()) {
            DatabaseKind d = tables.kind(c);
            if (!strategy(d).oneAtATimeInThisJvm()) {
                return claim(c, d, lease, claimNo, server, now, until, limit, inDoubt, accounts, recover);
            }
            synchronized (jvmClaims) {
                return claim(c, d, lease, claimNo, server, now, until, limit, inDoubt, accounts, recover);
            }
        } catch (SQLException e) {
            throw new StoreException("could not claim up to " + limit + " mails for " + lease.owner(), e);
        }
    }

    /** @return how a claim takes rows on a database of this kind ({@link LeaseStrategy#of}), the same each time */
    private LeaseStrategy strategy(DatabaseKind kind) {
        LeaseStrategy s = strategy;
        if (s == null) {
            s = LeaseStrategy.of(kind);
            strategy = s;
        }
        return s;
    }

    private Claim claim(Connection c, DatabaseKind d, Lease lease, int claimNo, String server, Instant now, Instant until,
                        int limit, InDoubtPolicy inDoubt, AccountFilter accounts, boolean recover) throws SQLException {
        strategy(d).planForKeys(c);
        int takenBack = recover ? Leases.recover(c, d, server, now, inDoubt) : 0;
        if (until == null ? !Leases.exists(c, lease) : Leases.renew(c, List.of(lease.claimer()), until).isEmpty()) {
            return new Claim(List.of(), takenBack, false);
        }
        AccountFilter filter = accounts.pausing(Pauses.read(c));
        List<Long> ids = filter.claimsNothing() ? List.of() : strategy(d).leaseCapped(c, lease, claimNo, now, limit, filter);
        return new Claim(ids.isEmpty() ? List.of() : ClaimedMailReader.read(c, d, ids, lease, now, tables.erasureKey()), takenBack, true);
    }

    /**
     * Renews claimers' leases: each that still has its MAIL_CLAIMER row runs until {@code until}. A lease that ran
     * out but was not yet taken back is renewed too, which is safe: its mails are still its own, and the row lock
     * orders this against a server that takes it back ({@link #recover} deletes the row only while it has run
     * out). One statement for all, and one that reads back which were renewed.
     *
     * @param claimers MAIL_CLAIMER ids
     * @param until    the new expiry
     * @return those renewed; a claimer missing from it has lost its lease and must send nothing more
     * @throws StoreException when the database fails
     */
    public Set<Long> renew(Collection<Long> claimers, Instant until) {
        try (Connection c = tables.connect()) {
            return Leases.renew(c, claimers, until);
        } catch (SQLException e) {
            throw new StoreException("could not renew the leases of " + claimers.size() + " claimers", e);
        }
    }

    /**
     * Takes back the mail of every claimer whose lease ran out, in the caller's transaction: its first unrecorded
     * mail in its send order as in doubt ({@link ExpiredLease}: QUEUED again or HELD, as {@link Transition}
     * says, with an IN_DOUBT row in its log), the others back to the queue as they were; then its lease goes. A
     * claimer found by two servers at once is taken back by one: the lease's delete decides.
     *
     * @param server  this server, for the log
     * @param now     now
     * @param inDoubt what becomes of a mail that may have been sent
     * @return mails taken back
     * @throws StoreException when the database fails
     */
    public int recover(String server, Instant now, InDoubtPolicy inDoubt) {
        try (Connection c = tables.connect()) {
            return Leases.recover(c, tables.kind(c), server, now, inDoubt);
        } catch (SQLException e) {
            throw new StoreException("could not take back the mail of expired leases", e);
        }
    }

    /**
     * @param mailId a mail
     * @return its text and HTML bodies, or a raw mail's message (read alone for a mail whose bodies a claim left
     *         out, and for every raw mail)
     * @throws StoreException when the database fails or the mail is gone
     */
    public ClaimedMail.Body body(long mailId) {
        try (Connection c = tables.connect();
             PreparedStatement s = c.prepareStatement("SELECT m.TEXT_BODY, m.HTML_BODY, r.CONTENT, r.UTF8_HEADERS"
                     + " FROM MAIL_MESSAGE m LEFT JOIN MAIL_RAW r ON r.MAIL_ID = m.ID WHERE m.ID = ?")) {
            s.setLong(1, mailId);
            try (ResultSet r = s.executeQuery()) {
                if (!r.next()) {
                    throw new StoreException("mail " + mailId + " is gone", new SQLException("no row", "02000"));
                }
                return new ClaimedMail.Body(r.getString(1), r.getString(2), r.getBytes(3), r.getInt(4) == 1);
            }
        } catch (SQLException e) {
            throw new StoreException("could not read the bodies of mail " + mailId, e);
        }
    }

    /**
     * @param mailId the mail that holds the attachment ({@link ClaimedMail.AttachmentInfo#storedWith})
     * @param seqNo  one of its attachments
     * @return the attachment's bytes, read when the message's DATA is written
     * @throws StoreException when the database fails or the attachment is gone
     */
    public byte[] attachmentContent(long mailId, int seqNo) {
        try (Connection c = tables.connect();
             PreparedStatement s = c.prepareStatement("SELECT CONTENT FROM MAIL_ATTACHMENT WHERE MAIL_ID = ? AND SEQ_NO = ?")) {
            s.setLong(1, mailId);
            s.setInt(2, seqNo);
            try (ResultSet r = s.executeQuery()) {
                if (!r.next()) {
                    throw new StoreException("attachment " + seqNo + " of mail " + mailId + " is gone",
                            new SQLException("no row", "02000"));
                }
                return r.getBytes(1);
            }
        } catch (SQLException e) {
            throw new StoreException("could not read attachment " + seqNo + " of mail " + mailId, e);
        }
    }
}
