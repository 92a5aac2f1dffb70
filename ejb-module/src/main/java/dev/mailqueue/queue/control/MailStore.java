package dev.mailqueue.queue.control;

import dev.mailqueue.api.MailStatus;
import dev.mailqueue.mail.entity.AddressLists;
import dev.mailqueue.mail.entity.AttemptOutcome;
import dev.mailqueue.mail.entity.RecipientStatus;
import dev.mailqueue.mail.entity.Texts;
import dev.mailqueue.schema.control.DatabaseKind;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.logging.Logger;
import java.util.stream.Collectors;

/**
 * The one owner of the mail's state: every statement that changes MAIL_MESSAGE and MAIL_RECIPIENT (and
 * writes the rows that belong to a mail: MAIL_ATTEMPT, MAIL_ATTACHMENT, MAIL_HEADER) is here: enqueue,
 * claim and lease, take back, renew, mark send started, record outcomes, hand back, release, requeue,
 * cancel, delete and retention. Status literals appear in SQL only here, and every change of a mail
 * that is under a lease is conditional on the lease ({@code STATUS = 'SENDING' AND LEASE_OWNER = ?}),
 * every operator change on the statuses it applies to, so no two writers can undo each other's work.
 * What an outcome leads to is {@link Transition}'s decision.
 *
 * <p>Plain JDBC on the container's data source, never a provider's connection: it runs on any server
 * and JPA provider. Each method takes a connection for the duration of its call; in a JTA transaction
 * (the callers' EJBs begin one) every call joins the same transaction, so a caller groups calls into
 * one unit of work and decides when it commits. Times are bound as UTC ({@link SqlTime}).
 */
@ApplicationScoped
public class MailStore {

    private static final Logger LOG = Logger.getLogger(MailStore.class.getName());

    /** The longest text or HTML body, in characters, that a claim reads with the mail; longer ones are read when composed. */
    public static final int CLAIM_BODY_CHARS = 65_536;

    /** Ids per IN list: well below the bind-parameter limits of every database (SQL Server: 2,100). */
    static final int IN_LIST = 500;

    /** Statuses a mail can be requeued from. CANCELLED too: an operator who withdrew a mail by mistake. */
    public static final Set<MailStatus> REQUEUEABLE = EnumSet.of(MailStatus.FAILED, MailStatus.EXPIRED,
            MailStatus.HELD, MailStatus.CANCELLED);

    /** Statuses an operator can cancel a mail from: not yet claimed, or held for review. */
    public static final Set<MailStatus> CANCELLABLE = EnumSet.of(MailStatus.QUEUED, MailStatus.HELD);

    /** Statuses a mail can be deleted in: all but SENDING, whose claimer holds the lease. */
    public static final Set<MailStatus> DELETABLE = EnumSet.complementOf(EnumSet.of(MailStatus.SENDING));

    /** Final statuses the retention job deletes; live and HELD mails are never deleted. */
    public static final Set<MailStatus> RETAINED_UNTIL_CUTOFF = EnumSet.of(MailStatus.SENT, MailStatus.FAILED,
            MailStatus.CANCELLED, MailStatus.EXPIRED);

    /** Noted on an attempt whose claimer had lost the lease when the outcome came to be recorded. */
    static final String LEASE_LOST = "lease lost before the outcome was recorded; row left to its new owner";

    static final String INSERT_MAIL = "INSERT INTO MAIL_MESSAGE (ID, MESSAGE_ID, STATUS, PRIORITY, CREATED_AT,"
            + " NOT_BEFORE, ATTEMPTS_REMAINING, FROM_ADDRESS, FROM_NAME, REPLY_TO, TO_ADDRESSES, CC_ADDRESSES,"
            + " BCC_ADDRESSES, SUBJECT, TEXT_BODY, HTML_BODY, EXPIRES_AT, IDEMPOTENCY_KEY, IDEMPOTENCY_FINGERPRINT,"
            + " COPY_OF, SMTP_ACCOUNT, ENQUEUED_BY, HEADER_COUNT, ATTACHMENT_COUNT)"
            + " VALUES (?, ?, 'QUEUED', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

    static final String INSERT_ATTACHMENT = "INSERT INTO MAIL_ATTACHMENT (MAIL_ID, SEQ_NO, FILE_NAME, CONTENT_TYPE,"
            + " SIZE_BYTES, CONTENT) VALUES (?, ?, ?, ?, ?, ?)";

    static final String INSERT_HEADER = "INSERT INTO MAIL_HEADER (MAIL_ID, SEQ_NO, HEADER_NAME, HEADER_VALUE)"
            + " VALUES (?, ?, ?, ?)";

    /** {@code ?}s: status, remaining, error, not-before, id, owner, now. */
    static final String TAKE_BACK = "UPDATE MAIL_MESSAGE SET STATUS = ?, ATTEMPTS_REMAINING = ?, LAST_ERROR = ?,"
            + " NOT_BEFORE = ?, LEASE_OWNER = NULL, LEASE_EXPIRES_AT = NULL, SEND_STARTED_AT = NULL"
            + " WHERE ID = ? AND STATUS = 'SENDING' AND LEASE_OWNER = ? AND LEASE_EXPIRES_AT < ?";

    /**
     * {@code ?}s: lease expiry, id, owner. By primary key, row by row: a statement that picked the rows by
     * owner would scan and lock other claimers' rows on Derby, and wait for (or deadlock with) the
     * journal's writes to them.
     */
    static final String RENEW = "UPDATE MAIL_MESSAGE SET LEASE_EXPIRES_AT = ?"
            + " WHERE ID = ? AND STATUS = 'SENDING' AND LEASE_OWNER = ?";

    /** A claimer's leased row it never began to send goes back as it was; {@code ?}s: id, owner. By primary key. */
    static final String RELEASE = "UPDATE MAIL_MESSAGE SET STATUS = 'QUEUED', LEASE_OWNER = NULL, LEASE_EXPIRES_AT = NULL"
            + " WHERE ID = ? AND STATUS = 'SENDING' AND LEASE_OWNER = ? AND SEND_STARTED_AT IS NULL";

    /** {@code ?}s: at, id, owner. */
    static final String MARK_STARTED = "UPDATE MAIL_MESSAGE SET SEND_STARTED_AT = ?"
            + " WHERE ID = ? AND STATUS = 'SENDING' AND LEASE_OWNER = ?";

    /** {@code ?}s: status, remaining, not-before, last-attempt-at, sent-at, error, id, owner. */
    static final String RECORD = "UPDATE MAIL_MESSAGE SET STATUS = ?, ATTEMPTS_REMAINING = ?, NOT_BEFORE = ?,"
            + " LAST_ATTEMPT_AT = ?, SENT_AT = ?, LAST_ERROR = ?, LEASE_OWNER = NULL, LEASE_EXPIRES_AT = NULL,"
            + " SEND_STARTED_AT = NULL WHERE ID = ? AND STATUS = 'SENDING' AND LEASE_OWNER = ?";

    /** A mail past its expires-at, not attempted; {@code ?}s: error, id, owner. */
    static final String RECORD_EXPIRED = "UPDATE MAIL_MESSAGE SET STATUS = 'EXPIRED', LAST_ERROR = ?,"
            + " LEASE_OWNER = NULL, LEASE_EXPIRES_AT = NULL, SEND_STARTED_AT = NULL"
            + " WHERE ID = ? AND STATUS = 'SENDING' AND LEASE_OWNER = ?";

    static final String INSERT_ATTEMPT = "INSERT INTO MAIL_ATTEMPT (ID, MAIL_ID, STARTED_AT, FINISHED_AT,"
            + " SERVER_INSTANCE, LEASE_OWNER, OUTCOME, SMTP_REPLY_CODE, SMTP_REPLY_TEXT, ERROR, ENHANCED_STATUS,"
            + " SMTP_ACCOUNT) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

    /** {@code ?}s: mail id, lower-case address. */
    static final String DELETE_RECIPIENT = "DELETE FROM MAIL_RECIPIENT WHERE MAIL_ID = ? AND LOWER(ADDRESS) = ?";

    static final String INSERT_RECIPIENT = "INSERT INTO MAIL_RECIPIENT (MAIL_ID, ADDRESS, STATUS, REPLY_CODE,"
            + " ENHANCED_STATUS, REPLY_TEXT, UPDATED_AT) VALUES (?, ?, ?, ?, ?, ?, ?)";

    /** {@code ?}s: not-before, note, id, owner. */
    static final String HAND_BACK = "UPDATE MAIL_MESSAGE SET STATUS = 'QUEUED', NOT_BEFORE = ?,"
            + " LAST_ERROR = COALESCE(?, LAST_ERROR), LEASE_OWNER = NULL, LEASE_EXPIRES_AT = NULL,"
            + " SEND_STARTED_AT = NULL WHERE ID = ? AND STATUS = 'SENDING' AND LEASE_OWNER = ?";

    @Resource(lookup = "jdbc/mailqueue")
    DataSource dataSource;

    private volatile Dialect dialect;

    /** Claims of this JVM on a database that cannot skip locked rows run one at a time ({@link LeaseStrategy}). */
    private final Object jvmClaims = new Object();

    /** The database's kind, its lease strategy and its id sequences, found on first use. */
    private record Dialect(DatabaseKind kind, LeaseStrategy lease, IdBlocks mailIds, IdBlocks attemptIds) {
    }

    /**
     * @param dataSource a data source of the queue's schema
     * @return a store on it, e.g. for tests outside a container
     */
    public static MailStore on(DataSource dataSource) {
        MailStore store = new MailStore();
        store.dataSource = dataSource;
        return store;
    }

    // ------------------------------------------------------------------------------------------------
    // Enqueue

    /**
     * Inserts the mails of several requests, with their attachments and header fields, in JDBC batches
     * (one per table), in the caller's transaction.
     *
     * @param groups one per request, in order
     * @return per group, its mails as queued, in order
     * @throws StoreException when the database refuses, e.g. a repeated idempotency key
     *                        ({@link #isUniqueViolation})
     */
    public List<List<Enqueued>> enqueue(List<MailGroup> groups) {
        int total = groups.stream().mapToInt(g -> g.mails().size()).sum();
        try (Connection c = dataSource.getConnection()) {
            Dialect d = dialect(c);
            long[] ids = d.mailIds().next(c, d.kind(), total);
            List<List<Enqueued>> result = new ArrayList<>(groups.size());
            boolean anyParts = false;
            try (Batch insertBatch = new Batch(c, d.kind(), INSERT_MAIL)) {
                PreparedStatement insert = insertBatch.statement();
                int next = 0;
                for (MailGroup group : groups) {
                    List<Enqueued> queued = new ArrayList<>(group.mails().size());
                    long first = ids[next];
                    for (int k = 0; k < group.mails().size(); k++) {
                        NewMail mail = group.mails().get(k);
                        long id = ids[next++];
                        bindMail(insert, id, mail, k == 0 ? group.idempotencyKey() : null,
                                k == 0 ? group.fingerprint() : null, group.copies() ? first : null);
                        insertBatch.add();
                        queued.add(new Enqueued(id, mail.messageId()));
                        anyParts |= !mail.attachments().isEmpty() || !mail.headers().isEmpty();
                    }
                    result.add(queued);
                }
                insertBatch.execute();
            }
            if (anyParts) {
                insertParts(c, groups, ids);
            }
            return result;
        } catch (SQLException e) {
            throw new StoreException("could not queue " + total + " mails", e);
        }
    }

    private static void bindMail(PreparedStatement s, long id, NewMail mail, String key, String fingerprint, Long copyOf)
            throws SQLException {
        s.setLong(1, id);
        s.setString(2, mail.messageId());
        s.setInt(3, mail.priority());
        SqlTime.set(s, 4, mail.createdAt());
        SqlTime.set(s, 5, mail.notBefore());
        s.setInt(6, mail.attempts());
        s.setString(7, mail.from());
        setText(s, 8, mail.fromName());
        setText(s, 9, mail.replyTo());
        setText(s, 10, AddressLists.join(mail.to()));
        setText(s, 11, AddressLists.join(mail.cc()));
        setText(s, 12, AddressLists.join(mail.bcc()));
        setText(s, 13, mail.subject());
        setLongText(s, 14, mail.text());
        setLongText(s, 15, mail.html());
        SqlTime.set(s, 16, mail.expiresAt());
        setText(s, 17, key);
        setText(s, 18, fingerprint);
        if (copyOf == null) {
            s.setNull(19, Types.BIGINT);
        } else {
            s.setLong(19, copyOf);
        }
        setText(s, 20, mail.account());
        setText(s, 21, mail.enqueuedBy());
        s.setInt(22, mail.headers().size());
        s.setInt(23, mail.attachments().size());
    }

    private static void insertParts(Connection c, List<MailGroup> groups, long[] ids) throws SQLException {
        try (PreparedStatement attachments = c.prepareStatement(INSERT_ATTACHMENT);
             PreparedStatement headers = c.prepareStatement(INSERT_HEADER)) {
            int next = 0;
            boolean anyAttachment = false;
            boolean anyHeader = false;
            for (MailGroup group : groups) {
                for (NewMail mail : group.mails()) {
                    long id = ids[next++];
                    for (int seq = 0; seq < mail.attachments().size(); seq++) {
                        NewMail.Attachment a = mail.attachments().get(seq);
                        attachments.setLong(1, id);
                        attachments.setInt(2, seq);
                        attachments.setString(3, a.filename());
                        attachments.setString(4, a.contentType());
                        attachments.setLong(5, a.content().length);
                        attachments.setBytes(6, a.content());
                        attachments.addBatch();
                        anyAttachment = true;
                    }
                    for (int seq = 0; seq < mail.headers().size(); seq++) {
                        NewMail.Header h = mail.headers().get(seq);
                        headers.setLong(1, id);
                        headers.setInt(2, seq);
                        headers.setString(3, h.name());
                        headers.setString(4, h.value());
                        headers.addBatch();
                        anyHeader = true;
                    }
                }
            }
            // A statement is executed only when it has rows: MariaDB Connector/J under Liberty's wrapper
            // trips over an empty batch.
            if (anyAttachment) {
                attachments.executeBatch();
            }
            if (anyHeader) {
                headers.executeBatch();
            }
        }
    }

    /**
     * An earlier enqueue with the same idempotency key.
     *
     * @param first       its first (or only) mail
     * @param status      the first mail's status now
     * @param fingerprint the digest of the request that queued it, or null for mail queued before V6
     * @param copies      its copies, one per recipient, in id order; empty when it queued one mail
     */
    public record EarlierEnqueue(Enqueued first, MailStatus status, String fingerprint, List<Copy> copies) {
    }

    /**
     * @param mail   a copy as queued
     * @param status its status now
     */
    public record Copy(Enqueued mail, MailStatus status) {
    }

    /**
     * @param scopedKey an idempotency key scoped to its user, as stored
     * @return the enqueue that used it, if any
     * @throws StoreException when the database fails
     */
    public Optional<EarlierEnqueue> findByIdempotencyKey(String scopedKey) {
        try (Connection c = dataSource.getConnection();
             PreparedStatement s = c.prepareStatement("SELECT ID, MESSAGE_ID, STATUS, IDEMPOTENCY_FINGERPRINT, COPY_OF"
                     + " FROM MAIL_MESSAGE WHERE IDEMPOTENCY_KEY = ?")) {
            s.setString(1, scopedKey);
            Enqueued first;
            MailStatus status;
            String fingerprint;
            Long copyOf;
            try (ResultSet r = s.executeQuery()) {
                if (!r.next()) {
                    return Optional.empty();
                }
                first = new Enqueued(r.getLong(1), r.getString(2));
                status = MailStatus.valueOf(r.getString(3));
                fingerprint = r.getString(4);
                long copy = r.getLong(5);
                copyOf = r.wasNull() ? null : copy;
            }
            List<Copy> copies = new ArrayList<>();
            if (copyOf != null) {
                try (PreparedStatement q = c.prepareStatement(
                        "SELECT ID, MESSAGE_ID, STATUS FROM MAIL_MESSAGE WHERE COPY_OF = ? ORDER BY ID")) {
                    q.setLong(1, copyOf);
                    try (ResultSet r = q.executeQuery()) {
                        while (r.next()) {
                            copies.add(new Copy(new Enqueued(r.getLong(1), r.getString(2)), MailStatus.valueOf(r.getString(3))));
                        }
                    }
                }
            }
            return Optional.of(new EarlierEnqueue(first, status, fingerprint, copies));
        } catch (SQLException e) {
            throw new StoreException("could not look up an idempotency key", e);
        }
    }

    /**
     * @param failure what an enqueue threw
     * @return true when a cause is an SQL integrity constraint violation (SQLState class 23), which for
     *         an insert of new rows with random Message-IDs can only be a repeated idempotency key
     */
    public static boolean isUniqueViolation(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql && sql.getSQLState() != null && sql.getSQLState().startsWith("23")) {
                return true;
            }
        }
        return false;
    }

    // ------------------------------------------------------------------------------------------------
    // Claim

    /**
     * How much work waits, for deciding how many claimers to start.
     *
     * @param now now
     * @param max stop counting at this many, 1 or more
     * @return due QUEUED rows plus SENDING rows whose lease ran out, each counted up to {@code max}
     * @throws StoreException when the database fails
     */
    public int countClaimable(Instant now, int max) {
        try (Connection c = dataSource.getConnection()) {
            Dialect d = dialect(c);
            return count(c, d.kind().firstRows(LeaseStrategy.DUE.formatted(""), max), now)
                    + count(c, d.kind().firstRows(LeaseStrategy.EXPIRED + " ORDER BY ID", max), now);
        } catch (SQLException e) {
            throw new StoreException("could not count the mail due", e);
        }
    }

    private static int count(Connection c, String sql, Instant now) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql)) {
            SqlTime.set(s, 1, now);
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
     * Claims due mails for one claimer, in the caller's transaction (which must commit before any mail
     * is sent): first puts back rows whose lease ran out (their claimer died), as {@link Transition}
     * says, logging an IN_DOUBT attempt for those whose send had begun; then leases the best due rows
     * (priority, then age) under a pessimistic row lock ({@link LeaseStrategy}) and reads them.
     *
     * @param owner     the lease owner, e.g. {@code host/server#42}, at most 200 characters
     * @param server    this server, for the attempt log of taken-back rows
     * @param now       now
     * @param leaseEnds when the lease runs out unless renewed
     * @param limit     most rows to lease, 1 or more
     * @param inDoubt   what becomes of a taken-back row whose send had begun
     * @param accounts  whose mails to leave in the queue
     * @return the claim
     * @throws StoreException when the database fails or a lock cannot be had
     */
    public Claim claim(String owner, String server, Instant now, Instant leaseEnds, int limit, InDoubtPolicy inDoubt,
                       AccountFilter accounts) {
        try (Connection c = dataSource.getConnection()) {
            Dialect d = dialect(c);
            if (!d.lease().oneAtATimeInThisJvm()) {
                return claim(c, d, owner, now, leaseEnds, limit, inDoubt, accounts);
            }
            synchronized (jvmClaims) {
                return claim(c, d, owner, now, leaseEnds, limit, inDoubt, accounts);
            }
        } catch (SQLException e) {
            throw new StoreException("could not claim up to " + limit + " mails for " + owner, e);
        }
    }

    private Claim claim(Connection c, Dialect d, String owner, Instant now, Instant leaseEnds, int limit,
                        InDoubtPolicy inDoubt, AccountFilter accounts) throws SQLException {
        int takenBack = takeBack(c, d, d.lease().findExpired(c, now), inDoubt, now);
        List<Long> ids = d.lease().lease(c, owner, now, leaseEnds, limit, accounts);
        return new Claim(ids.isEmpty() ? List.of() : readClaimed(c, ids), takenBack);
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
        List<AttemptRow> doubts = new ArrayList<>();
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
                doubts.add(new AttemptRow(lease.mailId(), lease.sendStartedAt(), now, serverOf(lease.owner()),
                        lease.owner(), AttemptOutcome.IN_DOUBT, null, null, note, null, null));
            }
        }
        insertAttempts(c, d, doubts);
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
            + " CASE WHEN LENGTH(HTML_BODY) <= " + CLAIM_BODY_CHARS + " THEN HTML_BODY END"
            + " FROM MAIL_MESSAGE WHERE ID IN (%s) ORDER BY PRIORITY DESC, CREATED_AT, ID";

    /** One claimed row while it is read, before its parts are attached. */
    private record Row(long id, String messageId, Instant createdAt, int attempts, Instant expiresAt, String from,
                       String fromName, String replyTo, String to, String cc, String bcc, String subject,
                       String account, boolean attemptedBefore, boolean maybeHeaders, boolean maybeAttachments,
                       ClaimedMail.Body body) {
    }

    private List<ClaimedMail> readClaimed(Connection c, List<Long> ids) throws SQLException {
        List<Row> rows = new ArrayList<>(ids.size());
        // By id only: this transaction has just leased (and write-locked) these rows; a read that also named
        // status and owner could take Derby down an index over other claimers' rows and wait for their writers.
        try (PreparedStatement s = c.prepareStatement(CLAIMED_COLUMNS.formatted(LeaseStrategy.marks(ids.size())))) {
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
                    rows.add(new Row(r.getLong(1), r.getString(2), SqlTime.get(r, 3), r.getInt(4), SqlTime.get(r, 5),
                            r.getString(6), r.getString(7), r.getString(8), r.getString(9), r.getString(10),
                            r.getString(11), r.getString(12), r.getString(13), SqlTime.get(r, 14) != null,
                            headersUnknown || headers > 0, attachmentsUnknown || attachments > 0, body));
                }
            }
        }
        Map<Long, Map<String, RecipientStatus>> settled = settledRecipients(c,
                rows.stream().filter(Row::attemptedBefore).map(Row::id).toList());
        Map<Long, List<NewMail.Header>> headers = headers(c, rows.stream().filter(Row::maybeHeaders).map(Row::id).toList());
        Map<Long, List<ClaimedMail.AttachmentInfo>> attachments = attachmentInfos(c,
                rows.stream().filter(Row::maybeAttachments).map(Row::id).toList());
        List<ClaimedMail> mails = new ArrayList<>(rows.size());
        for (Row row : rows) {
            mails.add(new ClaimedMail(row.id(), row.messageId(), row.createdAt(), row.attempts(), row.expiresAt(),
                    row.from(), row.fromName(), row.replyTo(), AddressLists.split(row.to()), AddressLists.split(row.cc()),
                    AddressLists.split(row.bcc()), row.subject(), row.account(),
                    settled.getOrDefault(row.id(), Map.of()), headers.getOrDefault(row.id(), List.of()),
                    attachments.getOrDefault(row.id(), List.of()), row.body()));
        }
        return mails;
    }

    /** Recipients that earlier attempts settled (accepted, or refused for good), by lower-case address. */
    private static Map<Long, Map<String, RecipientStatus>> settledRecipients(Connection c, List<Long> ids) throws SQLException {
        Map<Long, Map<String, RecipientStatus>> settled = new HashMap<>();
        if (ids.isEmpty()) {
            return settled;
        }
        try (PreparedStatement s = c.prepareStatement("SELECT MAIL_ID, ADDRESS, STATUS FROM MAIL_RECIPIENT"
                + " WHERE STATUS <> 'DEFERRED' AND MAIL_ID IN (" + LeaseStrategy.marks(ids.size()) + ")")) {
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
                + " WHERE MAIL_ID IN (" + LeaseStrategy.marks(ids.size()) + ") ORDER BY MAIL_ID, SEQ_NO")) {
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
                + " FROM MAIL_ATTACHMENT WHERE MAIL_ID IN (" + LeaseStrategy.marks(ids.size()) + ") ORDER BY MAIL_ID, SEQ_NO")) {
            bindIds(s, 1, ids);
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    infos.computeIfAbsent(r.getLong(1), id -> new ArrayList<>()).add(new ClaimedMail.AttachmentInfo(
                            r.getInt(2), r.getString(3), r.getString(4), r.getLong(5)));
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
        try (Connection c = dataSource.getConnection();
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
     * @param mailId a mail
     * @param seqNo  one of its attachments
     * @return the attachment's bytes, read when the message's DATA is written
     * @throws StoreException when the database fails or the attachment is gone
     */
    public byte[] attachmentContent(long mailId, int seqNo) {
        try (Connection c = dataSource.getConnection();
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

    /**
     * Renews a live claimer's leases: the rows stay its own for another lease time.
     *
     * @param owner the claimer
     * @param ids   the rows it may still hold
     * @param until the new expiry
     * @return rows renewed
     * @throws StoreException when the database fails
     */
    public int renew(String owner, Collection<Long> ids, Instant until) {
        if (ids.isEmpty()) {
            return 0;
        }
        try (Connection c = dataSource.getConnection();
             Batch batch = new Batch(c, dialect(c).kind(), RENEW)) {
            PreparedStatement s = batch.statement();
            for (Long id : ids) {
                SqlTime.set(s, 1, until);
                s.setLong(2, id);
                s.setString(3, owner);
                batch.add();
            }
            int renewed = 0;
            for (int count : batch.execute()) {
                renewed += Math.max(0, count);
            }
            return renewed;
        } catch (SQLException e) {
            throw new StoreException("could not renew the leases of " + owner, e);
        }
    }

    // ------------------------------------------------------------------------------------------------
    // What claimers record

    /**
     * Writes a group of claimers' changes in the caller's transaction, in JDBC batches by kind: marks,
     * attempts (row, attempt log, recipients), hand-backs, releases. Per-recipient rows are de-duplicated
     * by lower-case address first, so one mail's repeated recipient cannot fail the group.
     *
     * @param changes the changes, in the order they were made
     * @param retry   the backoff, for transient failures
     * @param inDoubt the in-doubt policy
     * @param verify  true when an earlier write of the same changes may have committed unseen (its
     *                commit failed with the connection): an attempt whose row is no longer leased is
     *                then looked up in the attempt log and not logged twice
     * @throws StoreException when the database refuses; nothing of the group is written then (the
     *                        caller's transaction rolls back)
     */
    public void apply(List<Change> changes, RetryPolicy retry, InDoubtPolicy inDoubt, boolean verify) {
        List<Change.SendStarted> marks = new ArrayList<>();
        List<AttemptResult> attempts = new ArrayList<>();
        List<Change.HandedBack> handBacks = new ArrayList<>();
        List<Change.Released> releases = new ArrayList<>();
        for (Change change : changes) {
            if (change instanceof Change.SendStarted m) {
                marks.add(m);
            } else if (change instanceof Change.Attempted a) {
                attempts.add(a.result());
            } else if (change instanceof Change.HandedBack h) {
                handBacks.add(h);
            } else if (change instanceof Change.Released r) {
                releases.add(r);
            }
        }
        try (Connection c = dataSource.getConnection()) {
            Dialect d = dialect(c);
            if (!marks.isEmpty()) {
                try (Batch sBatch = new Batch(c, d.kind(), MARK_STARTED)) {
                PreparedStatement s = sBatch.statement();
                    for (Change.SendStarted m : marks) {
                        SqlTime.set(s, 1, m.at());
                        s.setLong(2, m.mailId());
                        s.setString(3, m.owner());
                        sBatch.add();
                    }
                    sBatch.execute();
                }
            }
            if (!attempts.isEmpty()) {
                recordAttempts(c, d, attempts, retry, inDoubt, verify);
            }
            if (!handBacks.isEmpty()) {
                try (Batch sBatch = new Batch(c, d.kind(), HAND_BACK)) {
                PreparedStatement s = sBatch.statement();
                    for (Change.HandedBack h : handBacks) {
                        SqlTime.set(s, 1, h.dueAt());
                        setText(s, 2, Texts.clip(h.note(), 2000));
                        s.setLong(3, h.mailId());
                        s.setString(4, h.owner());
                        sBatch.add();
                    }
                    sBatch.execute();
                }
            }
            if (!releases.isEmpty()) {
                try (Batch batch = new Batch(c, d.kind(), RELEASE)) {
                    PreparedStatement s = batch.statement();
                    for (Change.Released r : releases) {
                        for (Long id : r.ids()) {
                            s.setLong(1, id);
                            s.setString(2, r.owner());
                            batch.add();
                        }
                    }
                    batch.execute();
                }
            }
        } catch (SQLException e) {
            throw new StoreException("could not record " + changes.size() + " dispatch changes", e);
        }
    }

    private void recordAttempts(Connection c, Dialect d, List<AttemptResult> attempts, RetryPolicy retry,
                                InDoubtPolicy inDoubt, boolean verify) throws SQLException {
        List<AttemptResult> tried = new ArrayList<>();
        List<AttemptResult> expired = new ArrayList<>();
        for (AttemptResult a : attempts) {
            (a.verdict() == Verdict.EXPIRED ? expired : tried).add(a);
        }
        Map<AttemptResult, Boolean> leased = new LinkedHashMap<>();
        if (!tried.isEmpty()) {
            try (Batch sBatch = new Batch(c, d.kind(), RECORD)) {
                PreparedStatement s = sBatch.statement();
                for (AttemptResult a : tried) {
                    Transition t = Transition.after(a, retry, inDoubt);
                    s.setString(1, t.status().name());
                    s.setInt(2, t.attemptsRemaining());
                    SqlTime.set(s, 3, t.notBefore());
                    SqlTime.set(s, 4, a.startedAt());
                    SqlTime.set(s, 5, a.sent() ? a.finishedAt() : null);
                    setText(s, 6, Texts.clip(t.error(), 2000));
                    s.setLong(7, a.mailId());
                    s.setString(8, a.owner());
                    sBatch.add();
                }
                int[] counts = sBatch.execute();
                for (int i = 0; i < tried.size(); i++) {
                    leased.put(tried.get(i), applied(counts[i]));
                }
            }
        }
        if (!expired.isEmpty()) {
            try (Batch sBatch = new Batch(c, d.kind(), RECORD_EXPIRED)) {
                PreparedStatement s = sBatch.statement();
                for (AttemptResult a : expired) {
                    setText(s, 1, Texts.clip(a.error(), 2000));
                    s.setLong(2, a.mailId());
                    s.setString(3, a.owner());
                    sBatch.add();
                }
                sBatch.execute(); // not an attempt: nothing is logged, whatever the count
            }
        }
        List<AttemptRow> rows = new ArrayList<>();
        List<AttemptResult> withRecipients = new ArrayList<>();
        for (Map.Entry<AttemptResult, Boolean> e : leased.entrySet()) {
            AttemptResult a = e.getKey();
            String error = a.error();
            if (!e.getValue()) {
                if (verify && attemptLogged(c, a)) {
                    continue; // the earlier write committed after all
                }
                LOG.warning(() -> "Mail " + a.mailId() + ": " + LEASE_LOST + " (claimer " + a.owner() + ")");
                error = error == null ? LEASE_LOST : error + "; " + LEASE_LOST;
            } else if (!a.recipients().isEmpty()) {
                withRecipients.add(a);
            }
            rows.add(new AttemptRow(a.mailId(), a.startedAt(), a.finishedAt(), a.server(), a.owner(),
                    outcomeOf(a.verdict()), a.replyCode(), a.replyText(), error, a.enhancedStatus(), a.account()));
        }
        insertAttempts(c, d, rows);
        recordRecipients(c, d.kind(), withRecipients);
    }

    private static AttemptOutcome outcomeOf(Verdict verdict) {
        return switch (verdict) {
            case SENT -> AttemptOutcome.SENT;
            case IN_DOUBT -> AttemptOutcome.IN_DOUBT;
            default -> AttemptOutcome.FAILED;
        };
    }

    private static boolean attemptLogged(Connection c, AttemptResult a) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT 1 FROM MAIL_ATTEMPT WHERE MAIL_ID = ? AND LEASE_OWNER = ?"
                + " AND STARTED_AT = ?")) {
            s.setLong(1, a.mailId());
            s.setString(2, a.owner());
            SqlTime.set(s, 3, a.startedAt());
            try (ResultSet r = s.executeQuery()) {
                return r.next();
            }
        }
    }

    /** One attempt-log row to insert. */
    private record AttemptRow(long mailId, Instant startedAt, Instant finishedAt, String server, String owner,
                              AttemptOutcome outcome, Integer replyCode, String replyText, String error,
                              String enhancedStatus, String account) {
    }

    private static void insertAttempts(Connection c, Dialect d, List<AttemptRow> rows) throws SQLException {
        if (rows.isEmpty()) {
            return;
        }
        long[] ids = d.attemptIds().next(c, d.kind(), rows.size());
        try (Batch sBatch = new Batch(c, d.kind(), INSERT_ATTEMPT)) {
                PreparedStatement s = sBatch.statement();
            for (int i = 0; i < rows.size(); i++) {
                AttemptRow a = rows.get(i);
                s.setLong(1, ids[i]);
                s.setLong(2, a.mailId());
                SqlTime.set(s, 3, a.startedAt());
                SqlTime.set(s, 4, a.finishedAt());
                s.setString(5, Texts.clip(a.server(), 200));
                s.setString(6, Texts.clip(a.owner(), 200));
                s.setString(7, a.outcome().name());
                if (a.replyCode() == null) {
                    s.setNull(8, Types.INTEGER);
                } else {
                    s.setInt(8, a.replyCode());
                }
                setText(s, 9, Texts.clip(a.replyText(), 1000));
                setText(s, 10, Texts.clip(a.error(), 2000));
                setText(s, 11, a.enhancedStatus());
                setText(s, 12, a.account());
                sBatch.add();
            }
            sBatch.execute();
        }
    }

    /** Replaces the recipient rows an attempt reports: one row per lower-case address. */
    private static void recordRecipients(Connection c, DatabaseKind kind, List<AttemptResult> attempts) throws SQLException {
        if (attempts.isEmpty()) {
            return;
        }
        Map<Long, Map<String, RecipientResult>> byMail = new LinkedHashMap<>();
        Map<Long, Instant> at = new HashMap<>();
        for (AttemptResult a : attempts) {
            Map<String, RecipientResult> unique = byMail.computeIfAbsent(a.mailId(), id -> new LinkedHashMap<>());
            for (RecipientResult r : a.recipients()) {
                unique.putIfAbsent(r.address().toLowerCase(Locale.ROOT), r);
            }
            at.put(a.mailId(), a.finishedAt());
        }
        try (PreparedStatement delete = c.prepareStatement(DELETE_RECIPIENT)) {
            for (Map.Entry<Long, Map<String, RecipientResult>> mail : byMail.entrySet()) {
                for (String key : mail.getValue().keySet()) {
                    delete.setLong(1, mail.getKey());
                    delete.setString(2, key);
                    delete.addBatch();
                }
            }
            delete.executeBatch();
        }
        try (Batch insertBatch = new Batch(c, kind, INSERT_RECIPIENT)) {
                PreparedStatement insert = insertBatch.statement();
            for (Map.Entry<Long, Map<String, RecipientResult>> mail : byMail.entrySet()) {
                for (RecipientResult r : mail.getValue().values()) {
                    insert.setLong(1, mail.getKey());
                    insert.setString(2, Texts.clip(r.address(), 254));
                    insert.setString(3, r.status().name());
                    if (r.replyCode() == null) {
                        insert.setNull(4, Types.INTEGER);
                    } else {
                        insert.setInt(4, r.replyCode());
                    }
                    setText(insert, 5, r.enhancedStatus());
                    setText(insert, 6, Texts.clip(r.replyText(), 1000));
                    SqlTime.set(insert, 7, at.get(mail.getKey()));
                    insertBatch.add();
                }
            }
            insertBatch.execute();
        }
    }

    // ------------------------------------------------------------------------------------------------
    // What operators do

    /**
     * Puts FAILED, EXPIRED, HELD and CANCELLED mails back in the queue as if new: QUEUED, due
     * {@code now}, {@code attempts} attempts, a new expiry, no lease. Recipients an earlier attempt
     * refused or deferred are forgotten, so the resend tries them again ("resend only the messages that
     * bounced", seed 004); recipients that accepted the mail are kept and not sent to again. Each row is
     * changed by its own guarded UPDATE, and recipient rows are deleted only for the rows that UPDATE
     * changed, under the row lock it holds until commit: a concurrent claim can never read a mail
     * half-requeued.
     *
     * @param ids       the mails
     * @param now       now
     * @param attempts  attempts they get, 1 or more
     * @param expiresAt their new expiry, or null for none
     * @return rows changed (the others were in no requeueable status)
     * @throws StoreException when the database fails
     */
    public int requeue(List<Long> ids, Instant now, int attempts, Instant expiresAt) {
        if (ids.isEmpty()) {
            return 0;
        }
        try (Connection c = dataSource.getConnection()) {
            int changed = 0;
            for (List<Long> chunk : chunks(ids)) {
                List<Long> requeued = new ArrayList<>(chunk.size());
                try (Batch batch = new Batch(c, dialect(c).kind(), "UPDATE MAIL_MESSAGE SET STATUS = 'QUEUED',"
                        + " ATTEMPTS_REMAINING = ?, NOT_BEFORE = ?, EXPIRES_AT = ?, LEASE_OWNER = NULL,"
                        + " LEASE_EXPIRES_AT = NULL, SEND_STARTED_AT = NULL WHERE ID = ? AND STATUS IN ("
                        + literals(REQUEUEABLE) + ")")) {
                    PreparedStatement s = batch.statement();
                    for (Long id : chunk) {
                        s.setInt(1, attempts);
                        SqlTime.set(s, 2, now);
                        SqlTime.set(s, 3, expiresAt);
                        s.setLong(4, id);
                        batch.add();
                    }
                    int[] counts = batch.execute();
                    for (int i = 0; i < chunk.size(); i++) {
                        if (counts[i] == Statement.SUCCESS_NO_INFO) {
                            throw new SQLException("the driver did not report per-row counts of a batched UPDATE"
                                    + " (MariaDB: set useBulkStmts=false on the data source)", "0A000");
                        }
                        if (counts[i] == 1) {
                            requeued.add(chunk.get(i));
                        }
                    }
                }
                if (!requeued.isEmpty()) {
                    try (PreparedStatement s = c.prepareStatement("DELETE FROM MAIL_RECIPIENT WHERE STATUS <> 'SENT'"
                            + " AND MAIL_ID IN (" + LeaseStrategy.marks(requeued.size()) + ")")) {
                        bindIds(s, 1, requeued);
                        s.executeUpdate();
                    }
                }
                changed += requeued.size();
            }
            return changed;
        } catch (SQLException e) {
            throw new StoreException("could not requeue " + ids.size() + " mails", e);
        }
    }

    /**
     * Cancels mails that are in one of {@code from}.
     *
     * @param ids  the mails
     * @param from the statuses they may be cancelled from: {@link MailStatus#QUEUED} for a sender,
     *             {@link #CANCELLABLE} for an operator
     * @return rows changed
     * @throws StoreException when the database fails
     */
    public int cancel(List<Long> ids, Set<MailStatus> from) {
        return change(ids, "UPDATE MAIL_MESSAGE SET STATUS = 'CANCELLED' WHERE STATUS IN (" + literals(from) + ")",
                "cancel");
    }

    /**
     * Deletes mails in any status but SENDING, with their attempt log, recipients and parts
     * (ON DELETE CASCADE).
     *
     * @param ids the mails
     * @return mails deleted
     * @throws StoreException when the database fails
     */
    public int delete(List<Long> ids) {
        return change(ids, "DELETE FROM MAIL_MESSAGE WHERE STATUS IN (" + literals(DELETABLE) + ")", "delete");
    }

    /**
     * The retention job's delete: those of {@code ids} that are still finished and whose every time lies
     * before the cutoff (a mail requeued since it was read stays).
     *
     * @param ids    mail ids
     * @param cutoff rows whose last moment is before this may go
     * @return mails deleted
     * @throws StoreException when the database fails
     */
    public int deleteFinished(List<Long> ids, Instant cutoff) {
        if (ids.isEmpty()) {
            return 0;
        }
        try (Connection c = dataSource.getConnection()) {
            int deleted = 0;
            for (List<Long> chunk : chunks(ids)) {
                try (PreparedStatement s = c.prepareStatement("DELETE FROM MAIL_MESSAGE WHERE " + FINISHED_BEFORE
                        + " AND ID IN (" + LeaseStrategy.marks(chunk.size()) + ")")) {
                    for (int i = 1; i <= 4; i++) {
                        SqlTime.set(s, i, cutoff);
                    }
                    bindIds(s, 5, chunk);
                    deleted += s.executeUpdate();
                }
            }
            return deleted;
        } catch (SQLException e) {
            throw new StoreException("could not delete " + ids.size() + " finished mails", e);
        }
    }

    /**
     * The retention rule as SQL: a final status, and every time of the row before the cutoff;
     * four {@code ?}s, each the cutoff.
     */
    static final String FINISHED_BEFORE = "STATUS IN (" + literals(RETAINED_UNTIL_CUTOFF) + ") AND CREATED_AT < ?"
            + " AND NOT_BEFORE < ? AND (LAST_ATTEMPT_AT IS NULL OR LAST_ATTEMPT_AT < ?)"
            + " AND (SENT_AT IS NULL OR SENT_AT < ?)";

    /**
     * @param cutoff  rows whose last moment is before this may go
     * @param afterId only ids greater than this, 0 or more (keyset paging)
     * @param max     most ids, 1 or more
     * @return ids of mails the retention job may delete, ascending
     * @throws StoreException when the database fails
     */
    public List<Long> finishedBefore(Instant cutoff, long afterId, int max) {
        try (Connection c = dataSource.getConnection()) {
            Dialect d = dialect(c);
            try (PreparedStatement s = c.prepareStatement(d.kind().firstRows(
                    "SELECT ID FROM MAIL_MESSAGE WHERE " + FINISHED_BEFORE + " AND ID > ? ORDER BY ID", max))) {
                for (int i = 1; i <= 4; i++) {
                    SqlTime.set(s, i, cutoff);
                }
                s.setLong(5, afterId);
                return LeaseStrategy.readIds(s);
            }
        } catch (SQLException e) {
            throw new StoreException("could not find finished mails", e);
        }
    }

    private int change(List<Long> ids, String guardedStatement, String what) {
        if (ids.isEmpty()) {
            return 0;
        }
        try (Connection c = dataSource.getConnection()) {
            int changed = 0;
            for (List<Long> chunk : chunks(ids)) {
                try (PreparedStatement s = c.prepareStatement(guardedStatement + " AND ID IN ("
                        + LeaseStrategy.marks(chunk.size()) + ")")) {
                    bindIds(s, 1, chunk);
                    changed += s.executeUpdate();
                }
            }
            return changed;
        } catch (SQLException e) {
            throw new StoreException("could not " + what + " " + ids.size() + " mails", e);
        }
    }

    // ------------------------------------------------------------------------------------------------

    private Dialect dialect(Connection c) throws SQLException {
        Dialect d = dialect;
        if (d == null) {
            DatabaseKind kind = DatabaseKind.of(c.getMetaData().getDatabaseProductName());
            d = new Dialect(kind, LeaseStrategy.of(kind), new IdBlocks("MAIL_MESSAGE_SEQ"), new IdBlocks("MAIL_ATTEMPT_SEQ"));
            synchronized (this) {
                if (dialect == null) {
                    dialect = d;
                }
                d = dialect;
            }
        }
        return d;
    }

    /**
     * A count of 1 means the guarded row was changed. A driver that cannot tell
     * ({@link Statement#SUCCESS_NO_INFO}) is taken as changed: the statement was conditional, so no
     * other owner's row was touched; only a note may then be missing.
     */
    private static boolean applied(int count) {
        return count == 1 || count == Statement.SUCCESS_NO_INFO;
    }

    private static String literals(Set<MailStatus> statuses) {
        return statuses.stream().map(s -> "'" + s.name() + "'").sorted().collect(Collectors.joining(", "));
    }

    private static List<List<Long>> chunks(List<Long> ids) {
        List<List<Long>> chunks = new ArrayList<>();
        for (int from = 0; from < ids.size(); from += IN_LIST) {
            chunks.add(ids.subList(from, Math.min(ids.size(), from + IN_LIST)));
        }
        return chunks;
    }

    private static void bindIds(PreparedStatement s, int from, List<Long> ids) throws SQLException {
        int i = from;
        for (Long id : ids) {
            s.setLong(i++, id);
        }
    }

    private static void setText(PreparedStatement s, int index, String value) throws SQLException {
        if (value == null) {
            s.setNull(index, Types.VARCHAR);
        } else {
            s.setString(index, value);
        }
    }

    /**
     * Bodies: CLOB on Derby, TEXT on PostgreSQL, LONGTEXT on MariaDB; all take a string, and a NULL typed
     * VARCHAR (PostgreSQL's driver binds a CLOB NULL as an OID, which a TEXT column refuses).
     */
    private static void setLongText(PreparedStatement s, int index, String value) throws SQLException {
        setText(s, index, value);
    }
}
