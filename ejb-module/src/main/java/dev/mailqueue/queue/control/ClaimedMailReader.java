package dev.mailqueue.queue.control;

import dev.mailqueue.api.MailStatus;
import dev.mailqueue.queue.entity.AddressLists;
import dev.mailqueue.queue.entity.AttemptOutcome;
import dev.mailqueue.queue.entity.RecipientStatus;
import dev.mailqueue.schema.control.DatabaseKind;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.logging.Logger;

import static dev.mailqueue.queue.control.Sql.bindIds;
import static dev.mailqueue.queue.control.Sql.marks;

/**
 * Reads what a claimer needs to send the mails a claim took, in the claim's transaction: the mail's row, its
 * recipients settled before, its extra header fields and its attachments' descriptions (their bytes are read when
 * the message is written), and bodies up to {@link ClaimedMail#CLAIM_BODY_CHARS}. Recipients that went on the
 * suppression list while their mail waited are settled here, so the claimer never sends to them.
 */
final class ClaimedMailReader {

    private static final Logger LOG = Logger.getLogger(ClaimedMailReader.class.getName());

    private ClaimedMailReader() {
    }

    private static final String CLAIMED_COLUMNS = "SELECT q.MAIL_ID, m.MESSAGE_ID, m.CREATED_AT, q.ATTEMPTS_LEFT,"
            + " q.EXPIRES_AT, m.FROM_ADDRESS, m.FROM_NAME, m.REPLY_TO, m.TO_ADDRESSES, m.CC_ADDRESSES, m.BCC_ADDRESSES,"
            + " m.SUBJECT, q.SMTP_ACCOUNT, q.SETTLED, m.HEADER_COUNT, m.ATTACHMENT_COUNT, LENGTH(m.TEXT_BODY),"
            + " LENGTH(m.HTML_BODY),"
            + " CASE WHEN LENGTH(m.TEXT_BODY) <= " + ClaimedMail.CLAIM_BODY_CHARS + " THEN m.TEXT_BODY END,"
            + " CASE WHEN LENGTH(m.HTML_BODY) <= " + ClaimedMail.CLAIM_BODY_CHARS + " THEN m.HTML_BODY END, m.COPY_OF,"
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

    /**
     * Reads the mails a claim just took, in the claim's transaction, and settles their recipients that went on the
     * suppression list meanwhile.
     *
     * @param ids   the mails taken (and write-locked) by this transaction
     * @param lease the claimer
     * @param now   now
     * @param erased the key of erased addresses on the suppression list, or null when erasure is not set up
     * @return the mails left to send, in send order
     */
    static List<ClaimedMail> read(Connection c, DatabaseKind d, List<Long> ids, Lease lease, Instant now,
                                  ErasureKey erased) throws SQLException {
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
                    boolean bodiesRead = !raw && (noText || textLength <= ClaimedMail.CLAIM_BODY_CHARS)
                            && (noHtml || htmlLength <= ClaimedMail.CLAIM_BODY_CHARS);
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
        Set<Long> nobodyLeft = settleSuppressed(c, d, rows, settled, lease, now, anySuppression, erased);
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
     * @param erased         the key of erased addresses, or null
     * @return the mails that have no one left to send to
     */
    private static Set<Long> settleSuppressed(Connection c, DatabaseKind d, List<Row> rows,
                                              Map<Long, Map<String, RecipientStatus>> settled, Lease lease, Instant now,
                                              boolean anySuppression, ErasureKey erased) throws SQLException {
        Set<String> addresses = new LinkedHashSet<>();
        rows.forEach(row -> row.recipients().forEach(a -> addresses.add(Suppressed.normalise(a))));
        Map<String, Set<String>> suppressed = Suppressed.scopes(c, addresses, anySuppression, erased);
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
            log.add(new AttemptLog.Row(row.id(), now, now, lease.server(), lease.owner(),
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
}
