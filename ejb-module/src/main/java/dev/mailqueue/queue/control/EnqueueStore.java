package dev.mailqueue.queue.control;

import dev.mailqueue.schema.control.DatabaseKind;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.queue.entity.AddressLists;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.Optional;

import static dev.mailqueue.queue.control.Sql.*;

/**
 * Puts mails in the queue: inserts them with their attachments and header fields in JDBC batches, and
 * finds the enqueue an idempotency key was used for. The copies of a per-recipient enqueue store their
 * attachments once, with the first copy (COPY_OF): see {@link OperatorStore#delete} for what happens
 * when that one is deleted first.
 */
@ApplicationScoped
public class EnqueueStore {

    /** The mail's content, written once. */
    static final String INSERT_MAIL = "INSERT INTO MAIL_MESSAGE (ID, MESSAGE_ID, PRIORITY, CREATED_AT,"
            + " FROM_ADDRESS, FROM_NAME, REPLY_TO, TO_ADDRESSES, CC_ADDRESSES,"
            + " BCC_ADDRESSES, SUBJECT, TEXT_BODY, HTML_BODY, EXPIRES_AT, IDEMPOTENCY_KEY, IDEMPOTENCY_FINGERPRINT,"
            + " COPY_OF, SMTP_ACCOUNT, ENQUEUED_BY, HEADER_COUNT, ATTACHMENT_COUNT, UNSUBSCRIBE_LIST,"
            + " ADDRESS_NAMES, REFERENCE, CAMPAIGN, TAGS, RAW_SIZE)"
            + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

    /** What changes while the mail waits: a row of the narrow queue, which leaves when the mail is finished. */
    static final String INSERT_QUEUED = "INSERT INTO MAIL_QUEUE (MAIL_ID, PRIORITY, CREATED_AT, DUE_AT, ATTEMPTS_LEFT,"
            + " EXPIRES_AT, SMTP_ACCOUNT, CAMPAIGN, SETTLED) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)";

    private static final String SUPPRESSED_AT_ENQUEUE = "on the suppression list when the mail was enqueued";

    static final String INSERT_ATTACHMENT = "INSERT INTO MAIL_ATTACHMENT (MAIL_ID, SEQ_NO, FILE_NAME, CONTENT_TYPE,"
            + " SIZE_BYTES, CONTENT) VALUES (?, ?, ?, ?, ?, ?)";

    /** A raw mail's message, as it is sent (V15). */
    static final String INSERT_RAW = "INSERT INTO MAIL_RAW (MAIL_ID, UTF8_HEADERS, CONTENT) VALUES (?, ?, ?)";

    static final String INSERT_HEADER = "INSERT INTO MAIL_HEADER (MAIL_ID, SEQ_NO, HEADER_NAME, HEADER_VALUE)"
            + " VALUES (?, ?, ?, ?)";

    @Inject
    QueueTables tables;

    /**
     * @param tables the queue's tables, e.g. on a data source of a test
     * @return a store on them, for use outside a container
     */
    public static EnqueueStore on(QueueTables tables) {
        EnqueueStore store = new EnqueueStore();
        store.tables = tables;
        return store;
    }

    /**
     * Inserts the mails of several requests, in the caller's transaction: each mail's content once (MAIL_MESSAGE,
     * with its attachments and header fields), and for each mail to be sent its row in the queue (MAIL_QUEUE). A
     * recipient on the suppression list is settled at once, by a row in the mail's log with a SUPPRESSED result; a
     * mail with no one else left is SUPPRESSED and never queued. One statement per table on PostgreSQL and
     * MariaDB (JDBC batches, sent as one); the ids and whether the suppression list holds anything come in one
     * statement more ({@link EnqueueIds}), and the list is read only when it does.
     *
     * @param groups one per request, in order
     * @param server this server's name, for the log of suppressed recipients
     * @return per group, its mails as queued, in order
     * @throws StoreException when the database refuses, e.g. a repeated idempotency key
     *                        ({@link #isUniqueViolation})
     */
    public List<List<Enqueued>> enqueue(List<MailGroup> groups, String server) {
        int total = groups.stream().mapToInt(g -> g.mails().size()).sum();
        try (Connection c = tables.connect()) {
            DatabaseKind d = tables.kind(c);
            EnqueueIds.Allocation allocation = EnqueueIds.next(c, d, total);
            long[] ids = allocation.ids();
            Map<String, Set<String>> suppressed = suppressedAmong(c, groups, allocation.anySuppression(), tables.erasureKey());
            List<List<Enqueued>> result = new ArrayList<>(groups.size());
            boolean anyParts = false;
            List<AttemptLog.Row> log = new ArrayList<>();
            try (Batch mails = new Batch(c, d, INSERT_MAIL); Batch queue = new Batch(c, d, INSERT_QUEUED)) {
                int next = 0;
                for (MailGroup group : groups) {
                    List<Enqueued> queued = new ArrayList<>(group.mails().size());
                    long first = ids[next];
                    for (int k = 0; k < group.mails().size(); k++) {
                        NewMail mail = group.mails().get(k);
                        long id = ids[next++];
                        List<String> blocked = Suppressed.recipients(mail, suppressed);
                        MailStatus status = !blocked.isEmpty() && blocked.size() == Suppressed.count(mail)
                                ? MailStatus.SUPPRESSED : MailStatus.QUEUED;
                        bindMail(mails.statement(), id, mail, k == 0 ? group.idempotencyKey() : null,
                                k == 0 ? group.fingerprint() : null, group.copies() ? first : null);
                        mails.add();
                        if (status == MailStatus.QUEUED) {
                            bindQueued(queue.statement(), id, mail, !blocked.isEmpty());
                            queue.add();
                        }
                        if (!blocked.isEmpty()) {
                            log.add(suppressedAtEnqueue(id, mail, blocked, status, server));
                        }
                        queued.add(new Enqueued(id, mail.messageId(), status, blocked));
                        anyParts |= !mail.attachments().isEmpty() || !mail.headers().isEmpty() || mail.raw() != null;
                    }
                    result.add(queued);
                }
                mails.execute();
                queue.execute();
            }
            if (anyParts) {
                insertParts(c, groups, ids);
            }
            AttemptLog.insert(c, d, log);
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
        s.setString(5, mail.from());
        setText(s, 6, mail.fromName());
        setText(s, 7, mail.replyTo());
        setText(s, 8, AddressLists.join(mail.to()));
        setText(s, 9, AddressLists.join(mail.cc()));
        setText(s, 10, AddressLists.join(mail.bcc()));
        setText(s, 11, mail.subject());
        setLongText(s, 12, mail.text());
        setLongText(s, 13, mail.html());
        SqlTime.set(s, 14, mail.expiresAt());
        setText(s, 15, key);
        setText(s, 16, fingerprint);
        if (copyOf == null) {
            s.setNull(17, Types.BIGINT);
        } else {
            s.setLong(17, copyOf);
        }
        setText(s, 18, mail.account());
        setText(s, 19, mail.enqueuedBy());
        s.setInt(20, mail.headers().size());
        s.setInt(21, mail.attachments().size());
        setText(s, 22, mail.unsubscribeList());
        setText(s, 23, mail.names().encode());
        setText(s, 24, mail.reference());
        setText(s, 25, mail.campaign());
        setText(s, 26, mail.tags().isEmpty() ? null : String.join(",", mail.tags()));
        if (mail.raw() == null) {
            s.setNull(27, Types.INTEGER);
        } else {
            s.setInt(27, mail.raw().content().length);
        }
    }

    private static void bindQueued(PreparedStatement s, long id, NewMail mail, boolean settled) throws SQLException {
        s.setLong(1, id);
        s.setInt(2, mail.priority());
        SqlTime.set(s, 3, mail.createdAt());
        SqlTime.set(s, 4, mail.notBefore());
        s.setInt(5, mail.attempts());
        SqlTime.set(s, 6, mail.expiresAt());
        setText(s, 7, mail.account());
        setText(s, 8, mail.campaign());
        s.setInt(9, settled ? 1 : 0);
    }

    /** The log row that settles a mail's suppressed recipients: a SUPPRESSED result (and event) each. */
    private static AttemptLog.Row suppressedAtEnqueue(long id, NewMail mail, List<String> blocked, MailStatus status,
                                                      String server) {
        List<RecipientResult> results = blocked.stream().map(a -> new RecipientResult(a.toLowerCase(Locale.ROOT),
                dev.mailqueue.queue.entity.RecipientStatus.SUPPRESSED, null, SUPPRESSED_AT_ENQUEUE, null)).toList();
        return new AttemptLog.Row(id, mail.createdAt(), mail.createdAt(), server, "enqueue:" + mail.enqueuedBy(),
                dev.mailqueue.queue.entity.AttemptOutcome.SUPPRESSED, null, null,
                status == MailStatus.SUPPRESSED ? "every recipient on the suppression list" : null, null, null,
                status == MailStatus.SUPPRESSED ? MailStatus.SUPPRESSED : null, null, null, null, results);
    }

    /**
     * Inserts the attachments and header fields of the mails. A statement is prepared only when it gets
     * rows: closed through Liberty's statement wrapper, a MariaDB Connector/J statement that never ran
     * throws a NullPointerException (the wrapper asks it for more results it never had).
     */
    private static void insertParts(Connection c, List<MailGroup> groups, long[] ids) throws SQLException {
        boolean anyAttachment = false;
        boolean anyHeader = false;
        boolean anyRaw = false;
        for (MailGroup group : groups) {
            for (NewMail mail : group.mails()) {
                anyAttachment |= !mail.attachments().isEmpty();
                anyHeader |= !mail.headers().isEmpty();
                anyRaw |= mail.raw() != null;
            }
        }
        if (anyRaw) {
            insertRaw(c, groups, ids);
        }
        if (anyAttachment) {
            insertAttachments(c, groups, ids);
        }
        if (anyHeader) {
            insertHeaders(c, groups, ids);
        }
    }

    private static void insertAttachments(Connection c, List<MailGroup> groups, long[] ids) throws SQLException {
        try (PreparedStatement attachments = c.prepareStatement(INSERT_ATTACHMENT)) {
            int next = 0;
            for (MailGroup group : groups) {
                for (int k = 0; k < group.mails().size(); k++) {
                    NewMail mail = group.mails().get(k);
                    long id = ids[next++];
                    // The copies of a per-recipient enqueue carry the same files: stored once, with the first.
                    int files = k == 0 || !group.copies() ? mail.attachments().size() : 0;
                    for (int seq = 0; seq < files; seq++) {
                        NewMail.Attachment a = mail.attachments().get(seq);
                        attachments.setLong(1, id);
                        attachments.setInt(2, seq);
                        attachments.setString(3, a.filename());
                        attachments.setString(4, a.contentType());
                        attachments.setLong(5, a.content().length);
                        attachments.setBytes(6, a.content());
                        attachments.addBatch();
                    }
                }
            }
            attachments.executeBatch();
        }
    }

    private static void insertRaw(Connection c, List<MailGroup> groups, long[] ids) throws SQLException {
        try (PreparedStatement raw = c.prepareStatement(INSERT_RAW)) {
            int next = 0;
            for (MailGroup group : groups) {
                for (NewMail mail : group.mails()) {
                    long id = ids[next++];
                    if (mail.raw() != null) {
                        raw.setLong(1, id);
                        raw.setInt(2, mail.raw().utf8Headers() ? 1 : 0);
                        raw.setBytes(3, mail.raw().content());
                        raw.addBatch();
                    }
                }
            }
            raw.executeBatch();
        }
    }

    private static void insertHeaders(Connection c, List<MailGroup> groups, long[] ids) throws SQLException {
        try (PreparedStatement headers = c.prepareStatement(INSERT_HEADER)) {
            int next = 0;
            for (MailGroup group : groups) {
                for (NewMail mail : group.mails()) {
                    long id = ids[next++];
                    for (int seq = 0; seq < mail.headers().size(); seq++) {
                        NewMail.Header h = mail.headers().get(seq);
                        headers.setLong(1, id);
                        headers.setInt(2, seq);
                        headers.setString(3, h.name());
                        headers.setString(4, h.value());
                        headers.addBatch();
                    }
                }
            }
            headers.executeBatch();
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
     * @param messageId a Message-ID with its angle brackets
     * @return the id of the mail that carries it, if the queue holds one (Message-IDs are unique here:
     *         MAIL_MESSAGE_MESSAGE_ID_UQ)
     * @throws StoreException when the database fails
     */
    public Optional<Long> findByMessageId(String messageId) {
        try (Connection c = tables.connect();
             PreparedStatement s = c.prepareStatement("SELECT ID FROM MAIL_MESSAGE WHERE MESSAGE_ID = ?")) {
            s.setString(1, messageId);
            try (ResultSet r = s.executeQuery()) {
                return r.next() ? Optional.of(r.getLong(1)) : Optional.empty();
            }
        } catch (SQLException e) {
            throw new StoreException("could not look up Message-ID " + messageId, e);
        }
    }

    /**
     * @param scopedKey an idempotency key scoped to its user, as stored
     * @return the enqueue that used it, if any
     * @throws StoreException when the database fails
     */
    public Optional<EarlierEnqueue> findByIdempotencyKey(String scopedKey) {
        // Derby's statements are not read-consistent: a read racing the first enqueue's commit can see its
        // message row without its queue row (no status). That enqueue committed by then; the next read sees all.
        for (int read = 1; ; read++) {
            Optional<EarlierEnqueue> found = readIdempotencyKey(scopedKey);
            if (found != null || read == STATE_READS) {
                return found == null ? Optional.empty() : found;
            }
        }
    }

    /** How often a lookup of an idempotency key reads again when it saw a mail without a status. */
    private static final int STATE_READS = 5;

    /**
     * @return the enqueue, empty when none, null when a mail was seen without its status (read again). The mails
     *         are found by their own columns first, then their state by id ({@link StateReads#statuses}): Derby
     *         does not carry a join's condition into the view MAIL_STATE, and a join on the key worked out the state
     *         of every mail in the database.
     */
    private Optional<EarlierEnqueue> readIdempotencyKey(String scopedKey) {
        try (Connection c = tables.connect()) {
            Enqueued first;
            String fingerprint;
            Long copyOf;
            try (PreparedStatement s = c.prepareStatement("SELECT ID, MESSAGE_ID, IDEMPOTENCY_FINGERPRINT, COPY_OF"
                    + " FROM MAIL_MESSAGE WHERE IDEMPOTENCY_KEY = ?")) {
                s.setString(1, scopedKey);
                try (ResultSet r = s.executeQuery()) {
                    if (!r.next()) {
                        return Optional.empty();
                    }
                    first = new Enqueued(r.getLong(1), r.getString(2));
                    fingerprint = r.getString(3);
                    long copy = r.getLong(4);
                    copyOf = r.wasNull() ? null : copy;
                }
            }
            List<Enqueued> copyMails = new ArrayList<>();
            if (copyOf != null) {
                try (PreparedStatement q = c.prepareStatement(
                        "SELECT ID, MESSAGE_ID FROM MAIL_MESSAGE WHERE COPY_OF = ? ORDER BY ID")) {
                    q.setLong(1, copyOf);
                    try (ResultSet r = q.executeQuery()) {
                        while (r.next()) {
                            copyMails.add(new Enqueued(r.getLong(1), r.getString(2)));
                        }
                    }
                }
            }
            List<Long> ids = new ArrayList<>();
            ids.add(first.id());
            copyMails.forEach(m -> ids.add(m.id()));
            Map<Long, MailStatus> statuses = StateReads.statuses(c, ids);
            if (!statuses.keySet().containsAll(ids)) {
                return null;
            }
            List<Copy> copies = copyMails.stream().map(m -> new Copy(m, statuses.get(m.id()))).toList();
            return Optional.of(new EarlierEnqueue(first, statuses.get(first.id()), fingerprint, copies));
        } catch (SQLException e) {
            throw new StoreException("could not look up an idempotency key", e);
        }
    }

    /**
     * @param failure what an enqueue threw
     * @return true when a cause is an SQL integrity constraint violation ({@link Sql#isUniqueViolation}), which for
     *         an insert of new rows with random Message-IDs can only be a repeated idempotency key
     */
    public static boolean isUniqueViolation(Throwable failure) {
        return Sql.isUniqueViolation(failure);
    }

    /**
     * @return the addresses (normalised as {@link Suppressed#normalise}) among the mails' recipients
     *         that are on the suppression list, each with the scopes it is suppressed in
     */
    private static Map<String, Set<String>> suppressedAmong(Connection c, List<MailGroup> groups, boolean anySuppression,
                                                            ErasureKey erased) throws SQLException {
        Set<String> addresses = new LinkedHashSet<>();
        for (MailGroup group : groups) {
            for (NewMail mail : group.mails()) {
                for (List<String> list : List.of(mail.to(), mail.cc(), mail.bcc())) {
                    list.forEach(a -> addresses.add(Suppressed.normalise(a)));
                }
            }
        }
        return Suppressed.scopes(c, addresses, anySuppression, erased);
    }
}
