package dev.mailqueue.queue.control;

import dev.mailqueue.mail.entity.AddressLists;
import dev.mailqueue.api.EventType;
import dev.mailqueue.mail.entity.AttemptOutcome;
import dev.mailqueue.mail.entity.RecipientStatus;
import dev.mailqueue.mail.entity.Texts;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.logging.Logger;

import static dev.mailqueue.queue.control.Sql.*;

/**
 * Claims due mails under a lease, reads what a claimer needs to send them, and renews a live claimer's
 * leases. A claim first takes back rows whose lease ran out (their claimer died), as {@link Transition}
 * says; every change of a leased row is conditional on its lease.
 */
@ApplicationScoped
public class ClaimStore {

    private static final Logger LOG = Logger.getLogger(ClaimStore.class.getName());

    /** The longest text or HTML body, in characters, that a claim reads with the mail; longer ones are read when composed. */
    public static final int CLAIM_BODY_CHARS = 65_536;

    /** {@code ?}s: status, remaining, error, not-before, id, owner, now. */
    static final String TAKE_BACK = "UPDATE MAIL_MESSAGE SET STATUS = ?, ATTEMPTS_REMAINING = ?, LAST_ERROR = ?,"
            + " NOT_BEFORE = ?, LEASE_OWNER = NULL, LEASE_EXPIRES_AT = NULL, SEND_STARTED_AT = NULL"
            + " WHERE ID = ? AND STATUS = 'SENDING' AND LEASE_OWNER = ? AND LEASE_EXPIRES_AT < ?";

    /**
     * {@code ?}s: lease expiry, id, owner. By primary key, row by row: a statement that picked the rows by
     * owner would scan and lock other claimers' rows on Derby, and wait for (or deadlock with) the
     * journal's writes to them.
     */
    /** A live claimer's lease renewal, one row by primary key ({@link Change.Renewed}, written by the journal). */
    static final String RENEW = "UPDATE MAIL_MESSAGE SET LEASE_EXPIRES_AT = ?"
            + " WHERE ID = ? AND STATUS = 'SENDING' AND LEASE_OWNER = ?";

    /** Claims of this JVM on a database that cannot skip locked rows run one at a time ({@link LeaseStrategy}). */
    private final Object jvmClaims = new Object();

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
     * How much work waits, for deciding how many claimers to start: due mail a claim with this filter
     * could take now (none while the queue is paused; none of paused accounts and campaigns, read with
     * one query as the claim reads them), so that a paused queue starts no claimers.
     *
     * @param now         now
     * @param max         stop counting at this many, 1 or more
     * @param withExpired true to count SENDING rows whose lease ran out too
     * @param accounts    whose mails a claim would take
     * @return due QUEUED rows, plus (when asked) SENDING rows whose lease ran out, each counted up to
     *         {@code max}
     * @throws StoreException when the database fails
     */
    public int countClaimable(Instant now, int max, boolean withExpired, AccountFilter accounts) {
        try (Connection c = tables.connect()) {
            Dialect d = tables.dialect(c);
            AccountFilter filter = accounts.pausing(DispatchPauseStore.read(c));
            return (filter.claimsNothing() ? 0
                    : count(c, d.kind().firstRows(LeaseStrategy.DUE.formatted(filter.sql()), max), now, filter))
                    + (withExpired ? count(c, d.kind().firstRows(LeaseStrategy.EXPIRED + " ORDER BY ID", max), now, null) : 0);
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
     * @param mails     the mails now leased to the claimer, best first
     * @param takenBack rows whose lease had run out and that this claim put back first
     */
    public record Claim(List<ClaimedMail> mails, int takenBack) {
    }

    /**
     * Claims due mails for one claimer, taking back expired leases first; see
     * {@link #claim(String, String, Instant, Instant, int, InDoubtPolicy, AccountFilter, boolean)}.
     *
     * @return the claim
     * @throws StoreException when the database fails or a lock cannot be had
     */
    public Claim claim(String owner, String server, Instant now, Instant leaseEnds, int limit, InDoubtPolicy inDoubt,
                       AccountFilter accounts) {
        return claim(owner, server, now, leaseEnds, limit, inDoubt, accounts, true);
    }

    /**
     * Claims due mails for one claimer, in the caller's transaction (which must commit before any mail
     * is sent): first, when asked, puts back rows whose lease ran out (their claimer died), as
     * {@link Transition} says, logging an IN_DOUBT attempt for those whose send had begun; then leases
     * the best due rows (priority, then age) under a pessimistic row lock ({@link LeaseStrategy}) and
     * reads them.
     *
     * @param owner     the lease owner, e.g. {@code host/server#42}, at most 200 characters
     * @param server    this server, for the attempt log of taken-back rows
     * @param now       now
     * @param leaseEnds when the lease runs out unless renewed
     * @param limit     most rows to lease, 1 or more
     * @param inDoubt   what becomes of a taken-back row whose send had begun
     * @param accounts  whose mails to claim; the claim narrows it by what is paused (the queue, accounts,
     *                  campaigns), which it reads in one query on its own connection
     * @param takeBack  true to put back expired leases first: a lease runs out only when its claimer
     *                  died, so a server sweeps them once in a while ({@code ExpiredLeaseSweep}), not
     *                  with every claim (on PostgreSQL the sweep reads index entries of every lease
     *                  set since the last vacuum)
     * @return the claim
     * @throws StoreException when the database fails or a lock cannot be had
     */
    public Claim claim(String owner, String server, Instant now, Instant leaseEnds, int limit, InDoubtPolicy inDoubt,
                       AccountFilter accounts, boolean takeBack) {
        try (Connection c = tables.connect()) {
            Dialect d = tables.dialect(c);
            if (!d.lease().oneAtATimeInThisJvm()) {
                return claim(c, d, owner, now, leaseEnds, limit, inDoubt, accounts, takeBack);
            }
            synchronized (jvmClaims) {
                return claim(c, d, owner, now, leaseEnds, limit, inDoubt, accounts, takeBack);
            }
        } catch (SQLException e) {
            throw new StoreException("could not claim up to " + limit + " mails for " + owner, e);
        }
    }

    private Claim claim(Connection c, Dialect d, String owner, Instant now, Instant leaseEnds, int limit,
                        InDoubtPolicy inDoubt, AccountFilter accounts, boolean takeBack) throws SQLException {
        int takenBack = takeBack ? takeBack(c, d, d.lease().findExpired(c, now), inDoubt, now) : 0;
        // The pauses of the queue, the accounts and the campaigns: one query, on the claim's connection.
        AccountFilter filter = accounts.pausing(DispatchPauseStore.read(c));
        List<Long> ids = filter.claimsNothing() ? List.of() : d.lease().lease(c, owner, now, leaseEnds, limit, filter);
        return new Claim(ids.isEmpty() ? List.of() : readClaimed(c, d, ids, now), takenBack);
    }

    private int takeBack(Connection c, Dialect d, List<ExpiredLease> expired, InDoubtPolicy inDoubt, Instant now)
            throws SQLException {
        if (expired.isEmpty()) {
            return 0;
        }
        List<Transition> next = new ArrayList<>(expired.size());
        int[] counts;
        try (Batch updateBatch = new Batch(c, d.kind(), TAKE_BACK)) {
            PreparedStatement update = updateBatch.statement();
            for (ExpiredLease lease : expired) {
                Transition t = Transition.afterLostLease(lease, inDoubt, now);
                next.add(t);
                update.setString(1, t.status().name());
                update.setInt(2, t.attemptsRemaining());
                update.setString(3, Texts.clip(t.error(), 2000));
                SqlTime.set(update, 4, t.notBefore());
                update.setLong(5, lease.mailId());
                update.setString(6, lease.owner());
                SqlTime.set(update, 7, now);
                updateBatch.add();
            }
            counts = updateBatch.execute();
        }
        List<AttemptLog.Row> doubts = new ArrayList<>();
        List<EventLog.Row> events = new ArrayList<>();
        int taken = 0;
        for (int i = 0; i < expired.size(); i++) {
            if (!applied(counts[i])) {
                continue; // another claimer took it back first
            }
            taken++;
            ExpiredLease lease = expired.get(i);
            if (lease.inDoubt()) {
                String note = next.get(i).error();
                LOG.warning(() -> "Mail " + lease.mailId() + ": " + note);
                doubts.add(new AttemptLog.Row(lease.mailId(), lease.sendStartedAt(), now, serverOf(lease.owner()),
                        lease.owner(), AttemptOutcome.IN_DOUBT, null, null, note, null, null));
                Transition t = next.get(i);
                EventType type = AttemptEvents.ofLostLease(lease, t.status());
                events.add(new EventLog.Row(lease.mailId(), type, now, null, null, null, note,
                        type == EventType.DEFERRED ? t.notBefore() : null));
            }
        }
        AttemptLog.insert(c, d, doubts);
        EventLog.insert(c, d, events);
        return taken;
    }

    /** @return the server part of a lease owner {@code host/server#execution} */
    static String serverOf(String owner) {
        int hash = owner.lastIndexOf('#');
        return hash > 0 ? owner.substring(0, hash) : owner;
    }

    private static final String CLAIMED_COLUMNS = "SELECT ID, MESSAGE_ID, CREATED_AT, ATTEMPTS_REMAINING, EXPIRES_AT,"
            + " FROM_ADDRESS, FROM_NAME, REPLY_TO, TO_ADDRESSES, CC_ADDRESSES, BCC_ADDRESSES, SUBJECT, SMTP_ACCOUNT,"
            + " LAST_ATTEMPT_AT, HEADER_COUNT, ATTACHMENT_COUNT, LENGTH(TEXT_BODY), LENGTH(HTML_BODY),"
            + " CASE WHEN LENGTH(TEXT_BODY) <= " + CLAIM_BODY_CHARS + " THEN TEXT_BODY END,"
            + " CASE WHEN LENGTH(HTML_BODY) <= " + CLAIM_BODY_CHARS + " THEN HTML_BODY END, COPY_OF, SUPPRESSED_COUNT,"
            + " UNSUBSCRIBE_LIST, ADDRESS_NAMES FROM MAIL_MESSAGE WHERE ID IN (%s) ORDER BY PRIORITY DESC, CREATED_AT, ID";

    /** One claimed row while it is read, before its parts are attached. */
    private record Row(long id, String messageId, Instant createdAt, int attempts, Instant expiresAt, String from,
                       String fromName, String replyTo, String to, String cc, String bcc, String subject,
                       String account, boolean settledRows, boolean maybeHeaders, boolean maybeAttachments,
                       ClaimedMail.Body body, long filesOf, String list, String names) {

        /** @return the mail's recipients, To, then Cc, then Bcc, as written */
        List<String> recipients() {
            List<String> all = new ArrayList<>(AddressLists.split(to));
            all.addAll(AddressLists.split(cc));
            all.addAll(AddressLists.split(bcc));
            return all;
        }
    }

    private List<ClaimedMail> readClaimed(Connection c, Dialect d, List<Long> ids, Instant now) throws SQLException {
        List<Row> rows = new ArrayList<>(ids.size());
        // By id only: this transaction has just leased (and write-locked) these rows; a read that also named
        // status and owner could take Derby down an index over other claimers' rows and wait for their writers.
        try (PreparedStatement s = c.prepareStatement(CLAIMED_COLUMNS.formatted(marks(ids.size())))) {
            int i = 1;
            for (Long id : ids) {
                s.setLong(i++, id);
            }
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    long textLength = r.getLong(17);
                    boolean noText = r.wasNull();
                    long htmlLength = r.getLong(18);
                    boolean noHtml = r.wasNull();
                    boolean bodiesRead = (noText || textLength <= CLAIM_BODY_CHARS) && (noHtml || htmlLength <= CLAIM_BODY_CHARS);
                    ClaimedMail.Body body = bodiesRead ? new ClaimedMail.Body(r.getString(19), r.getString(20)) : null;
                    int headers = r.getInt(15);
                    boolean headersUnknown = r.wasNull();
                    int attachments = r.getInt(16);
                    boolean attachmentsUnknown = r.wasNull();
                    long copyOf = r.getLong(21);
                    long filesOf = r.wasNull() ? r.getLong(1) : copyOf; // copies share the first copy's files
                    // Recipient rows exist for a mail tried before, or with recipients suppressed at enqueue.
                    boolean settledRows = SqlTime.get(r, 14) != null || r.getInt(22) > 0;
                    rows.add(new Row(r.getLong(1), r.getString(2), SqlTime.get(r, 3), r.getInt(4), SqlTime.get(r, 5),
                            r.getString(6), r.getString(7), r.getString(8), r.getString(9), r.getString(10),
                            r.getString(11), r.getString(12), r.getString(13), settledRows,
                            headersUnknown || headers > 0, attachmentsUnknown || attachments > 0, body, filesOf,
                            r.getString(23), r.getString(24)));
                }
            }
        }
        Map<Long, Map<String, RecipientStatus>> settled = settledRecipients(c,
                rows.stream().filter(Row::settledRows).map(Row::id).toList());
        Set<Long> nobodyLeft = settleSuppressed(c, d, rows, settled, now);
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
                    attachments.getOrDefault(row.filesOf(), List.of()), row.body(), AddressNames.decode(row.names())));
        }
        return mails;
    }

    /**
     * Settles the recipients that went on the suppression list (for all mail, or for the mail's list) while
     * their mail waited in the queue: a SUPPRESSED recipient row each, in the claim's transaction, so that
     * the claimer never sends to them. One query on the list's primary key per claim. A mail left with no
     * one but suppressed recipients becomes SUPPRESSED and leaves the claim: its lease is cleared at once.
     *
     * @param settled the recipients settled before, per mail; the newly suppressed are added
     * @return the mails that have no one left to send to
     */
    private static Set<Long> settleSuppressed(Connection c, Dialect d, List<Row> rows, Map<Long, Map<String, RecipientStatus>> settled,
                                              Instant now) throws SQLException {
        Set<String> addresses = new LinkedHashSet<>();
        rows.forEach(row -> row.recipients().forEach(a -> addresses.add(SuppressionStore.normalise(a))));
        Map<String, Set<String>> suppressed = Suppressed.scopes(c, addresses);
        if (suppressed.isEmpty()) {
            return Set.of();
        }
        Set<Long> nobodyLeft = new HashSet<>();
        for (Row row : rows) {
            Map<String, RecipientStatus> done = settled.computeIfAbsent(row.id(), id -> new HashMap<>());
            Set<String> everyone = new LinkedHashSet<>();
            List<String> newly = new ArrayList<>();
            for (String address : row.recipients()) {
                String key = address.toLowerCase(Locale.ROOT);
                everyone.add(key);
                if (!done.containsKey(key) && Suppressed.covers(suppressed, address, row.list())) {
                    newly.add(key);
                }
            }
            if (newly.isEmpty()) {
                continue;
            }
            List<EventLog.Row> events = new ArrayList<>();
            for (String key : newly) {
                settleSuppressed(c, row.id(), key, now);
                done.put(key, RecipientStatus.SUPPRESSED);
                events.add(EventLog.Row.of(row.id(), EventType.SUPPRESSED, now, key,
                        "on the suppression list when the mail was claimed"));
            }
            EventLog.insert(c, d, events);
            boolean none = everyone.stream().allMatch(key -> done.get(key) == RecipientStatus.SUPPRESSED);
            try (PreparedStatement s = c.prepareStatement(none
                    ? "UPDATE MAIL_MESSAGE SET SUPPRESSED_COUNT = COALESCE(SUPPRESSED_COUNT, 0) + ?, STATUS = 'SUPPRESSED',"
                    + " LEASE_OWNER = NULL, LEASE_EXPIRES_AT = NULL WHERE ID = ?"
                    : "UPDATE MAIL_MESSAGE SET SUPPRESSED_COUNT = COALESCE(SUPPRESSED_COUNT, 0) + ? WHERE ID = ?")) {
                s.setInt(1, newly.size());
                s.setLong(2, row.id());
                s.executeUpdate();
            }
            if (none) {
                nobodyLeft.add(row.id());
                LOG.info(() -> "mail " + row.id() + " SUPPRESSED when claimed: all its recipients went on the suppression list");
            }
        }
        return nobodyLeft;
    }

    /** Marks one recipient SUPPRESSED: its row of an earlier attempt (DEFERRED) is updated, else one is added. */
    private static void settleSuppressed(Connection c, long mailId, String address, Instant now) throws SQLException {
        String why = "on the suppression list when the mail was claimed";
        try (PreparedStatement s = c.prepareStatement("UPDATE MAIL_RECIPIENT SET STATUS = 'SUPPRESSED', REPLY_TEXT = ?,"
                + " UPDATED_AT = ? WHERE MAIL_ID = ? AND ADDRESS = ?")) {
            s.setString(1, why);
            SqlTime.set(s, 2, now);
            s.setLong(3, mailId);
            s.setString(4, address);
            if (s.executeUpdate() > 0) {
                return;
            }
        }
        try (PreparedStatement s = c.prepareStatement(EnqueueStore.INSERT_SUPPRESSED)) {
            s.setLong(1, mailId);
            s.setString(2, address);
            s.setString(3, why);
            SqlTime.set(s, 4, now);
            s.executeUpdate();
        }
    }

    /**
     * Recipients that earlier attempts settled (accepted, or refused for good), or that were suppressed at
     * enqueue, by lower-case address.
     */
    private static Map<Long, Map<String, RecipientStatus>> settledRecipients(Connection c, List<Long> ids) throws SQLException {
        Map<Long, Map<String, RecipientStatus>> settled = new HashMap<>();
        if (ids.isEmpty()) {
            return settled;
        }
        try (PreparedStatement s = c.prepareStatement("SELECT MAIL_ID, ADDRESS, STATUS FROM MAIL_RECIPIENT"
                + " WHERE STATUS <> 'DEFERRED' AND MAIL_ID IN (" + marks(ids.size()) + ")")) {
            bindIds(s, 1, ids);
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    settled.computeIfAbsent(r.getLong(1), id -> new HashMap<>())
                            .put(r.getString(2).toLowerCase(Locale.ROOT), RecipientStatus.valueOf(r.getString(3)));
                }
            }
        }
        return settled;
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
     * @return its text and HTML bodies (read alone for a mail whose bodies a claim left out)
     * @throws StoreException when the database fails or the mail is gone
     */
    public ClaimedMail.Body body(long mailId) {
        try (Connection c = tables.connect();
             PreparedStatement s = c.prepareStatement("SELECT TEXT_BODY, HTML_BODY FROM MAIL_MESSAGE WHERE ID = ?")) {
            s.setLong(1, mailId);
            try (ResultSet r = s.executeQuery()) {
                if (!r.next()) {
                    throw new StoreException("mail " + mailId + " is gone", new SQLException("no row", "02000"));
                }
                return new ClaimedMail.Body(r.getString(1), r.getString(2));
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
