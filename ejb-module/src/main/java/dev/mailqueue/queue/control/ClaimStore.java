package dev.mailqueue.queue.control;

import dev.mailqueue.schema.control.DatabaseKind;
import dev.mailqueue.settings.control.InDoubtPolicy;
import dev.mailqueue.api.EventType;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.queue.entity.AddressLists;
import dev.mailqueue.queue.entity.AttemptOutcome;
import dev.mailqueue.queue.entity.RecipientStatus;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.TreeMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.logging.Logger;

import static dev.mailqueue.queue.control.Sql.bindIds;
import static dev.mailqueue.queue.control.Sql.marks;

/**
 * Claims due mail for claimers and reads what they need to send it; starts claimers' leases and takes back the
 * mail of claimers whose lease ran out. A claim writes one narrow row per mail it takes (MAIL_QUEUE.CLAIMER), never
 * the mail itself; every later change of a held mail is conditional on its claimer ({@link OutcomeStore}).
 */
@ApplicationScoped
public class ClaimStore {

    private static final Logger LOG = Logger.getLogger(ClaimStore.class.getName());

    /** The longest text or HTML body, in characters, that a claim reads with the mail; longer ones are read when composed. */
    public static final int CLAIM_BODY_CHARS = 65_536;

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
            int due = filter.claimsNothing() ? 0 : count(c, d.firstRows(
                    (anyOrder ? LeaseStrategy.DUE_UNORDERED : LeaseStrategy.DUE).formatted(filter.sql()), max), now, filter);
            int expired = withExpired ? count(c, d.firstRows("SELECT q.MAIL_ID FROM MAIL_QUEUE q JOIN MAIL_CLAIMER c"
                    + " ON c.ID = q.CLAIMER WHERE c.EXPIRES_AT < ?" + (anyOrder ? "" : " ORDER BY q.MAIL_ID"), max), now,
                    null) : 0;
            return due + expired;
        } catch (SQLException e) {
            throw new StoreException("could not count the mail due", e);
        }
    }

    private static int count(Connection c, String sql, Instant now, AccountFilter filter) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql)) {
            SqlTime.set(s, 1, now);
            if (filter != null) {
                filter.bind(s, 2);
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
        int takenBack = recover ? recover(c, d, server, now, inDoubt) : 0;
        if (until == null ? !exists(c, lease) : renew(c, List.of(lease.claimer()), until).isEmpty()) {
            return new Claim(List.of(), takenBack, false);
        }
        AccountFilter filter = accounts.pausing(Pauses.read(c));
        List<Long> ids = filter.claimsNothing() ? List.of() : lease(c, strategy(d), lease, claimNo, now, limit, filter);
        return new Claim(ids.isEmpty() ? List.of() : readClaimed(c, d, ids, lease, now), takenBack, true);
    }

    /**
     * Takes up to {@code limit} mails, at most its cap of each capped account's ({@link AccountFilter#capping}):
     * one pick per capped account, then one for the rest. All carry the same claim number; the send order within
     * the claim is the order of {@link #readClaimed} (priority, age), the same wherever the rows came from.
     */
    private static List<Long> lease(Connection c, LeaseStrategy strategy, Lease lease, int claimNo, Instant now, int limit,
                                    AccountFilter filter) throws SQLException {
        if (filter.caps().isEmpty()) {
            return strategy.lease(c, lease, claimNo, now, limit, filter);
        }
        List<Long> ids = new ArrayList<>();
        for (Map.Entry<String, Integer> cap : new TreeMap<>(filter.caps()).entrySet()) {
            AccountFilter one = filter.only(cap.getKey());
            if (ids.size() < limit && !one.claimsNothing()) {
                ids.addAll(strategy.lease(c, lease, claimNo, now, Math.min(cap.getValue(), limit - ids.size()), one));
            }
        }
        AccountFilter rest = filter.uncapped();
        if (ids.size() < limit && !rest.claimsNothing()) {
            ids.addAll(strategy.lease(c, lease, claimNo, now, limit - ids.size(), rest));
        }
        return ids;
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
            return renew(c, claimers, until);
        } catch (SQLException e) {
            throw new StoreException("could not renew the leases of " + claimers.size() + " claimers", e);
        }
    }

    /** @return true while the claimer's MAIL_CLAIMER row is there: its lease was not taken back */
    private static boolean exists(Connection c, Lease lease) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT ID FROM MAIL_CLAIMER WHERE ID = ?")) {
            s.setLong(1, lease.claimer());
            try (ResultSet r = s.executeQuery()) {
                return r.next();
            }
        }
    }

    private static Set<Long> renew(Connection c, Collection<Long> claimers, Instant until) throws SQLException {
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
            return recover(c, tables.kind(c), server, now, inDoubt);
        } catch (SQLException e) {
            throw new StoreException("could not take back the mail of expired leases", e);
        }
    }

    private int recover(Connection c, DatabaseKind d, String server, Instant now, InDoubtPolicy inDoubt) throws SQLException {
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
            log.add(new AttemptLog.Row(first.mailId(), now, now, serverOf(dead.owner()), dead.owner(),
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

    /** @return the server part of a lease owner {@code host/server#execution} */
    static String serverOf(String owner) {
        int hash = owner.lastIndexOf('#');
        return hash > 0 ? owner.substring(0, hash) : owner;
    }

    private static final String CLAIMED_COLUMNS = "SELECT q.MAIL_ID, m.MESSAGE_ID, m.CREATED_AT, q.ATTEMPTS_LEFT,"
            + " q.EXPIRES_AT, m.FROM_ADDRESS, m.FROM_NAME, m.REPLY_TO, m.TO_ADDRESSES, m.CC_ADDRESSES, m.BCC_ADDRESSES,"
            + " m.SUBJECT, q.SMTP_ACCOUNT, q.SETTLED, m.HEADER_COUNT, m.ATTACHMENT_COUNT, LENGTH(m.TEXT_BODY),"
            + " LENGTH(m.HTML_BODY),"
            + " CASE WHEN LENGTH(m.TEXT_BODY) <= " + CLAIM_BODY_CHARS + " THEN m.TEXT_BODY END,"
            + " CASE WHEN LENGTH(m.HTML_BODY) <= " + CLAIM_BODY_CHARS + " THEN m.HTML_BODY END, m.COPY_OF,"
            + " m.UNSUBSCRIBE_LIST, m.ADDRESS_NAMES,"
            + " CASE WHEN EXISTS (SELECT 1 FROM SUPPRESSION) THEN 1 ELSE 0 END, m.RAW_SIZE, q.PRIORITY, q.CREATED_AT"
            + " FROM MAIL_QUEUE q JOIN MAIL_MESSAGE m ON m.ID = q.MAIL_ID WHERE q.MAIL_ID IN (%s)";

    /**
     * The send order of a claim's mails, the claim's own order: priority, highest first, then age, then id. Sorted
     * here, not by the read: on PostgreSQL, sorting up to 100 whole rows (bodies of up to 64 KB each) took 0.4 of
     * the read's 1.3 ms for 100 mails of 1 KB.
     */
    private static final Comparator<Row> SEND_ORDER = Comparator.comparingInt(Row::priority).reversed()
            .thenComparing(Row::queuedAt).thenComparingLong(Row::id);

    /** One claimed mail while it is read, before its parts are attached. */
    private record Row(long id, String messageId, Instant createdAt, int attempts, Instant expiresAt, String from,
                       String fromName, String replyTo, String to, String cc, String bcc, String subject,
                       String account, boolean settledRows, boolean maybeHeaders, boolean maybeAttachments,
                       ClaimedMail.Body body, long filesOf, String list, String names, int priority,
                       Instant queuedAt) {

        /** @return the mail's recipients, To, then Cc, then Bcc, as written */
        List<String> recipients() {
            List<String> all = new ArrayList<>(AddressLists.split(to));
            all.addAll(AddressLists.split(cc));
            all.addAll(AddressLists.split(bcc));
            return all;
        }
    }

    private List<ClaimedMail> readClaimed(Connection c, DatabaseKind d, List<Long> ids, Lease lease, Instant now)
            throws SQLException {
        List<Row> rows = new ArrayList<>(ids.size());
        boolean anySuppression = false;
        // By id only: this transaction has just taken (and write-locked) these rows.
        try (PreparedStatement s = c.prepareStatement(CLAIMED_COLUMNS.formatted(marks(ids.size())))) {
            bindIds(s, 1, ids);
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    long textLength = r.getLong(17);
                    boolean noText = r.wasNull();
                    long htmlLength = r.getLong(18);
                    boolean noHtml = r.wasNull();
                    r.getInt(25);
                    boolean raw = !r.wasNull(); // its message is read when it is composed
                    boolean bodiesRead = !raw && (noText || textLength <= CLAIM_BODY_CHARS)
                            && (noHtml || htmlLength <= CLAIM_BODY_CHARS);
                    ClaimedMail.Body body = bodiesRead ? new ClaimedMail.Body(r.getString(19), r.getString(20)) : null;
                    int headers = r.getInt(15);
                    boolean headersUnknown = r.wasNull();
                    int attachments = r.getInt(16);
                    boolean attachmentsUnknown = r.wasNull();
                    long copyOf = r.getLong(21);
                    long filesOf = r.wasNull() ? r.getLong(1) : copyOf; // copies share the first copy's files
                    anySuppression = r.getInt(24) == 1;
                    rows.add(new Row(r.getLong(1), r.getString(2), SqlTime.get(r, 3), r.getInt(4), SqlTime.get(r, 5),
                            r.getString(6), r.getString(7), r.getString(8), r.getString(9), r.getString(10),
                            r.getString(11), r.getString(12), r.getString(13), r.getInt(14) == 1,
                            headersUnknown || headers > 0, attachmentsUnknown || attachments > 0, body, filesOf,
                            r.getString(22), r.getString(23), r.getInt(26), SqlTime.get(r, 27)));
                }
            }
        }
        rows.sort(SEND_ORDER);
        Map<Long, Map<String, RecipientStatus>> settled = StateReads.settledRecipients(c,
                rows.stream().filter(Row::settledRows).map(Row::id).toList());
        Set<Long> nobodyLeft = settleSuppressed(c, d, rows, settled, lease, now, anySuppression);
        if (!nobodyLeft.isEmpty()) {
            rows.removeIf(row -> nobodyLeft.contains(row.id()));
        }
        Map<Long, List<NewMail.Header>> headers = headers(c, rows.stream().filter(Row::maybeHeaders).map(Row::id).toList());
        Map<Long, List<ClaimedMail.AttachmentInfo>> attachments = attachmentInfos(c,
                rows.stream().filter(Row::maybeAttachments).map(Row::filesOf).distinct().toList());
        List<ClaimedMail> mails = new ArrayList<>(rows.size());
        for (Row row : rows) {
            mails.add(new ClaimedMail(row.id(), row.messageId(), row.createdAt(), row.attempts(), row.expiresAt(),
                    row.from(), row.fromName(), row.replyTo(), AddressLists.split(row.to()), AddressLists.split(row.cc()),
                    AddressLists.split(row.bcc()), row.subject(), row.account(),
                    settled.getOrDefault(row.id(), Map.of()), headers.getOrDefault(row.id(), List.of()),
                    attachments.getOrDefault(row.filesOf(), List.of()), row.body(), AddressNames.decode(row.names()),
                    row.list()));
        }
        return mails;
    }

    /**
     * Settles the recipients that went on the suppression list (for all mail, or for the mail's list) while their
     * mail waited in the queue, in the claim's transaction, so that the claimer never sends to them: a row in the
     * mail's log with a SUPPRESSED result for each. A mail left with no one but suppressed recipients leaves the
     * queue as SUPPRESSED and the claim. Costs one query on the list's primary key per claim, none while the list is
     * empty.
     *
     * @param settled        the recipients settled before, per mail; the newly suppressed are added
     * @param anySuppression whether the suppression list holds anything at all
     * @return the mails that have no one left to send to
     */
    private static Set<Long> settleSuppressed(Connection c, DatabaseKind d, List<Row> rows,
                                              Map<Long, Map<String, RecipientStatus>> settled, Lease lease, Instant now,
                                              boolean anySuppression) throws SQLException {
        Set<String> addresses = new LinkedHashSet<>();
        rows.forEach(row -> row.recipients().forEach(a -> addresses.add(Suppressed.normalise(a))));
        Map<String, Set<String>> suppressed = Suppressed.scopes(c, addresses, anySuppression);
        if (suppressed.isEmpty()) {
            return Set.of();
        }
        Set<Long> nobodyLeft = new LinkedHashSet<>();
        List<AttemptLog.Row> log = new ArrayList<>();
        List<Long> nowSettled = new ArrayList<>();
        for (Row row : rows) {
            Map<String, RecipientStatus> done = settled.computeIfAbsent(row.id(), id -> new HashMap<>());
            Set<String> everyone = new LinkedHashSet<>();
            List<RecipientResult> newly = new ArrayList<>();
            for (String address : row.recipients()) {
                String key = address.toLowerCase(Locale.ROOT);
                everyone.add(key);
                if (!done.containsKey(key) && Suppressed.covers(suppressed, address, row.list())) {
                    newly.add(new RecipientResult(key, RecipientStatus.SUPPRESSED, null,
                            "on the suppression list when the mail was claimed", null));
                    done.put(key, RecipientStatus.SUPPRESSED);
                }
            }
            if (newly.isEmpty()) {
                continue;
            }
            boolean none = everyone.stream().allMatch(key -> done.get(key) == RecipientStatus.SUPPRESSED);
            log.add(new AttemptLog.Row(row.id(), now, now, serverOf(lease.owner()), lease.owner(),
                    AttemptOutcome.SUPPRESSED, null, null, none ? "every recipient on the suppression list" : null, null,
                    null, none ? MailStatus.SUPPRESSED : null, null, null, null, newly));
            if (none) {
                nobodyLeft.add(row.id());
                LOG.info(() -> "mail " + row.id() + " SUPPRESSED when claimed: all its recipients went on the suppression list");
            } else {
                nowSettled.add(row.id());
            }
        }
        if (!nobodyLeft.isEmpty()) {
            try (PreparedStatement s = c.prepareStatement("DELETE FROM MAIL_QUEUE WHERE MAIL_ID IN ("
                    + marks(nobodyLeft.size()) + ")")) {
                bindIds(s, 1, List.copyOf(nobodyLeft));
                s.executeUpdate();
            }
        }
        if (!nowSettled.isEmpty()) {
            try (PreparedStatement s = c.prepareStatement("UPDATE MAIL_QUEUE SET SETTLED = 1 WHERE MAIL_ID IN ("
                    + marks(nowSettled.size()) + ")")) {
                bindIds(s, 1, nowSettled);
                s.executeUpdate();
            }
        }
        AttemptLog.insert(c, d, log);
        return nobodyLeft;
    }

    private static Map<Long, List<NewMail.Header>> headers(Connection c, List<Long> ids) throws SQLException {
        Map<Long, List<NewMail.Header>> headers = new HashMap<>();
        if (ids.isEmpty()) {
            return headers;
        }
        try (PreparedStatement s = c.prepareStatement("SELECT MAIL_ID, HEADER_NAME, HEADER_VALUE FROM MAIL_HEADER"
                + " WHERE MAIL_ID IN (" + marks(ids.size()) + ") ORDER BY MAIL_ID, SEQ_NO")) {
            bindIds(s, 1, ids);
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    headers.computeIfAbsent(r.getLong(1), id -> new ArrayList<>())
                            .add(new NewMail.Header(r.getString(2), r.getString(3)));
                }
            }
        }
        return headers;
    }

    private static Map<Long, List<ClaimedMail.AttachmentInfo>> attachmentInfos(Connection c, List<Long> ids)
            throws SQLException {
        Map<Long, List<ClaimedMail.AttachmentInfo>> infos = new HashMap<>();
        if (ids.isEmpty()) {
            return infos;
        }
        try (PreparedStatement s = c.prepareStatement("SELECT MAIL_ID, SEQ_NO, FILE_NAME, CONTENT_TYPE, SIZE_BYTES"
                + " FROM MAIL_ATTACHMENT WHERE MAIL_ID IN (" + marks(ids.size()) + ") ORDER BY MAIL_ID, SEQ_NO")) {
            bindIds(s, 1, ids);
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    infos.computeIfAbsent(r.getLong(1), id -> new ArrayList<>()).add(new ClaimedMail.AttachmentInfo(
                            r.getLong(1), r.getInt(2), r.getString(3), r.getString(4), r.getLong(5)));
                }
            }
        }
        return infos;
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
