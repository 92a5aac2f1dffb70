package dev.mailqueue.queue.control;

import dev.mailqueue.api.EventRecord;
import dev.mailqueue.api.EventType;
import dev.mailqueue.queue.entity.AddressLists;
import dev.mailqueue.queue.entity.AttemptOutcome;
import dev.mailqueue.queue.entity.RecipientStatus;

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
import java.util.Objects;
import java.util.Set;

import static dev.mailqueue.queue.control.Sql.bindIds;
import static dev.mailqueue.queue.control.Sql.chunks;
import static dev.mailqueue.queue.control.Sql.marks;

/**
 * Reads the delivery events out of the mails' log, the reverse of {@link AttemptLog}: there is no event table.
 * A log row publishes
 * <ul>
 *   <li>one event per per-recipient result it wrote (MAIL_RECIPIENT rows with its id) whose status is an event
 *       ({@link AttemptLog#eventOf}), for that recipient, with the recipient's own reply: part {@code k}, the
 *       result's place among the row's results in lower-case address order (the order {@link AttemptLog#unique}
 *       writes them in), whether or not it is an event;</li>
 *   <li>then its own EVENT_TYPE, for RECIPIENT or the mail as a whole: part {@value #MAIL_WIDE}, detail the reply
 *       text for {@code sent} and ERROR otherwise (a NOTED row, an event of the outbox before V13, keeps its
 *       detail in ERROR).</li>
 * </ul>
 * An event's detail leaves out the reply code and enhanced status it carries beside it ({@link ReplyText}): a reply
 * stored as {@code 250 OK} is the event's code 250 and text {@code OK}.
 * An event's id is the row's id times {@value #PARTS} plus its part, so a row's events are numbered in the order
 * they are published (recipients first) and the id stays the same however often it is read.
 */
final class LogEvents {

    /** Event ids per log row. */
    static final int PARTS = 128;

    /** The part of a row's own event. */
    static final int MAIL_WIDE = PARTS - 1;

    /** The columns {@link #row} reads, from alias {@code a}. */
    static final String COLUMNS = "a.ID, a.MAIL_ID, a.OUTCOME, a.FINISHED_AT, a.EVENT_TYPE, a.RECIPIENT,"
            + " a.SMTP_REPLY_CODE, a.SMTP_REPLY_TEXT, a.ERROR, a.ENHANCED_STATUS, a.NEXT_ATTEMPT_AT, a.RESULTS";

    /** How many columns {@link #COLUMNS} are. */
    static final int COLUMN_COUNT = 12;

    /** Log rows of alias {@code a} that publish an event, or may (a result that maps to none publishes none). */
    static final String HAS_EVENT = "(a.EVENT_TYPE IS NOT NULL OR a.RESULTS > 0)";

    private LogEvents() {
    }

    /** One row of the log, as far as its events go. */
    record Row(long id, Long mailId, String outcome, Instant at, EventType type, String recipient, Integer replyCode,
               String replyText, String error, String enhanced, Instant next, int results) {

        /** @return true when it may publish an event */
        boolean hasEvent() {
            return type != null || results > 0;
        }
    }

    /** One per-recipient result of a row. */
    private record Result(String address, String status, Integer replyCode, String enhanced, String replyText) {
    }

    /** What an event carries of its mail. */
    private record MailPart(String messageId, String reference, String campaign, List<String> tags,
                            List<String> recipients) {
        static final MailPart NONE = new MailPart(null, null, null, List.of(), List.of());
    }

    /** @return the log row at the result set's current row, read from column {@code from} on ({@link #COLUMNS}) */
    static Row row(ResultSet r, int from) throws SQLException {
        int i = from;
        long id = r.getLong(i++);
        long mail = r.getLong(i++);
        Long mailId = r.wasNull() ? null : mail;
        String outcome = r.getString(i++);
        Instant at = SqlTime.get(r, i++);
        String type = r.getString(i++);
        String recipient = r.getString(i++);
        int code = r.getInt(i++);
        Integer replyCode = r.wasNull() ? null : code;
        String replyText = r.getString(i++);
        String error = r.getString(i++);
        String enhanced = r.getString(i++);
        Instant next = SqlTime.get(r, i++);
        int results = r.getInt(i);
        return new Row(id, mailId, outcome, at, type == null ? null : EventType.valueOf(type), recipient, replyCode,
                replyText, error, enhanced, next, results);
    }

    /**
     * @param c    a connection
     * @param rows log rows, in any order
     * @return their events in id order, each with what its mail says of itself (nothing when the mail is gone):
     *         a query per 500 rows with results for those, a query per 500 mails for the mails
     * @throws SQLException when the database fails
     */
    static List<EventRecord> of(Connection c, List<Row> rows) throws SQLException {
        List<Row> sorted = rows.stream().filter(Row::hasEvent).sorted(Comparator.comparingLong(Row::id)).toList();
        Map<Long, List<Result>> results = results(c, sorted.stream().filter(r -> r.results() > 0 && r.mailId() != null)
                .toList());
        Map<Long, MailPart> mails = mails(c, sorted.stream().map(Row::mailId).filter(Objects::nonNull).distinct().toList());
        List<EventRecord> events = new ArrayList<>();
        for (Row row : sorted) {
            MailPart mail = row.mailId() == null ? MailPart.NONE : mails.getOrDefault(row.mailId(), MailPart.NONE);
            List<Result> own = results.getOrDefault(row.id(), List.of());
            for (int part = 0; part < own.size() && part < MAIL_WIDE; part++) {
                Result r = own.get(part);
                EventType type = eventOf(r.status());
                if (type != null) {
                    events.add(event(row.id() * PARTS + part, row.mailId(), type, row.at(), r.address(), r.replyCode(),
                            r.enhanced(), ReplyText.of(r.replyCode(), r.enhanced(), r.replyText()), null, mail));
                }
            }
            if (row.type() != null) {
                String detail = row.type() == EventType.SENT && !AttemptOutcome.NOTED.name().equals(row.outcome())
                        ? row.replyText() : row.error();
                events.add(event(row.id() * PARTS + MAIL_WIDE, row.mailId(), row.type(), row.at(), row.recipient(),
                        row.replyCode(), row.enhanced(), ReplyText.of(row.replyCode(), row.enhanced(), detail), row.type() == EventType.DEFERRED ? row.next() : null,
                        mail));
            }
        }
        return events;
    }

    /**
     * @param c      a connection
     * @param mailId a mail
     * @return its events, in id order
     * @throws SQLException when the database fails
     */
    static List<EventRecord> ofMail(Connection c, long mailId) throws SQLException {
        List<Row> rows = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement("SELECT " + COLUMNS + " FROM MAIL_ATTEMPT a WHERE a.MAIL_ID = ?"
                + " AND " + HAS_EVENT + " ORDER BY a.ID")) {
            s.setLong(1, mailId);
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    rows.add(row(r, 1));
                }
            }
        }
        return of(c, rows);
    }

    /**
     * @param c   a connection
     * @param ids events
     * @return those of them that exist, by id: a query per 500 log rows, then as {@link #of}
     * @throws SQLException when the database fails
     */
    static Map<Long, EventRecord> byId(Connection c, List<Long> ids) throws SQLException {
        List<Long> rowIds = ids.stream().map(id -> id / PARTS).distinct().toList();
        List<Row> rows = new ArrayList<>();
        for (List<Long> chunk : chunks(rowIds)) {
            try (PreparedStatement s = c.prepareStatement("SELECT " + COLUMNS + " FROM MAIL_ATTEMPT a WHERE a.ID IN ("
                    + marks(chunk.size()) + ")")) {
                bindIds(s, 1, chunk);
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        rows.add(row(r, 1));
                    }
                }
            }
        }
        Set<Long> wanted = Set.copyOf(ids);
        Map<Long, EventRecord> events = new HashMap<>();
        for (EventRecord e : of(c, rows)) {
            if (wanted.contains(e.id())) {
                events.put(e.id(), e);
            }
        }
        return events;
    }

    /** @return the event a stored recipient status publishes, or null ({@link AttemptLog#eventOf}) */
    private static EventType eventOf(String status) {
        for (RecipientStatus s : RecipientStatus.values()) {
            if (s.name().equals(status)) {
                return AttemptLog.eventOf(s);
            }
        }
        return null;
    }

    private static EventRecord event(long id, Long mailId, EventType type, Instant at, String recipient,
                                     Integer replyCode, String enhanced, String detail, Instant next, MailPart m) {
        return new EventRecord(id, mailId, type, at, recipient, replyCode, enhanced, detail, next, m.messageId(),
                m.reference(), m.campaign(), m.tags(), m.recipients());
    }

    /**
     * @return the results of the rows, by row id, each row's in lower-case address order (as Java orders strings,
     *         not the database's collation): a query per 500 rows, by the mails' key
     */
    private static Map<Long, List<Result>> results(Connection c, List<Row> rows) throws SQLException {
        Map<Long, List<Result>> results = new HashMap<>();
        for (int from = 0; from < rows.size(); from += Sql.IN_LIST) {
            List<Row> chunk = rows.subList(from, Math.min(rows.size(), from + Sql.IN_LIST));
            List<Long> mails = new ArrayList<>(new LinkedHashSet<>(chunk.stream().map(Row::mailId).toList()));
            List<Long> attempts = chunk.stream().map(Row::id).toList();
            try (PreparedStatement s = c.prepareStatement("SELECT r.ATTEMPT_ID, r.ADDRESS, r.STATUS, r.REPLY_CODE,"
                    + " r.ENHANCED_STATUS, r.REPLY_TEXT FROM MAIL_RECIPIENT r WHERE r.MAIL_ID IN (" + marks(mails.size())
                    + ") AND r.ATTEMPT_ID IN (" + marks(attempts.size()) + ")")) {
                bindIds(s, 1, mails);
                bindIds(s, 1 + mails.size(), attempts);
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        int code = r.getInt(4);
                        results.computeIfAbsent(r.getLong(1), k -> new ArrayList<>()).add(new Result(r.getString(2),
                                r.getString(3), r.wasNull() ? null : code, r.getString(5), r.getString(6)));
                    }
                }
            }
        }
        Comparator<Result> byAddress = Comparator.comparing(r -> r.address().toLowerCase(Locale.ROOT));
        results.values().forEach(list -> list.sort(byAddress));
        return results;
    }

    /** @return the mails that still exist, by id: a query per 500, by primary key */
    private static Map<Long, MailPart> mails(Connection c, List<Long> ids) throws SQLException {
        Map<Long, MailPart> mails = new HashMap<>();
        for (List<Long> chunk : chunks(ids)) {
            try (PreparedStatement s = c.prepareStatement("SELECT ID, MESSAGE_ID, REFERENCE, CAMPAIGN, TAGS,"
                    + " TO_ADDRESSES, CC_ADDRESSES, BCC_ADDRESSES FROM MAIL_MESSAGE WHERE ID IN (" + marks(chunk.size()) + ")")) {
                bindIds(s, 1, chunk);
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        String tags = r.getString(5);
                        List<String> recipients = new ArrayList<>();
                        for (int k = 6; k <= 8; k++) {
                            recipients.addAll(AddressLists.split(r.getString(k)));
                        }
                        mails.put(r.getLong(1), new MailPart(r.getString(2), r.getString(3), r.getString(4),
                                tags == null || tags.isEmpty() ? List.of() : List.of(tags.split(",")), recipients));
                    }
                }
            }
        }
        return mails;
    }
}
