package dev.mailqueue.queue.control;

import dev.mailqueue.api.EventType;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.queue.entity.AttemptOutcome;
import dev.mailqueue.queue.entity.RecipientStatus;
import dev.mailqueue.schema.control.DatabaseKind;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static dev.mailqueue.queue.control.Sql.setText;

/**
 * Writes rows of a mail's log (MAIL_ATTEMPT) and the per-recipient results that come with them (MAIL_RECIPIENT),
 * insert only, in the caller's connection. A row is at once the attempt log's entry, the record of the mail's new
 * status ({@link Row#mailStatus()}) and the delivery event it publishes ({@link Row#event()}, and one event per
 * recipient result): there is no second write for any of them.
 * <p>
 * Ids are the database's, handed out as the rows are inserted, so a mail's later row always has the higher id.
 * Where the database has no transaction ids for the event publishers (Derby, MariaDB), the insert first takes the
 * event clock's row lock ({@code UPDATE EVENT_CLOCK}), held until the transaction ends: ids are then handed out in
 * commit order, and a publisher that has read id n has seen every row below it. Call it as the last writes of a
 * transaction, so that the lock is held briefly and never waited for while holding another.
 */
final class AttemptLog {

    private AttemptLog() {
    }

    /**
     * One row of a mail's log.
     *
     * @param mailId         the mail; null only for an unsubscribe, which names an address
     * @param startedAt      when the attempt (or the change) began
     * @param finishedAt     when it ended
     * @param server         the server that wrote it
     * @param owner          who did it: the claimer's lease owner, {@code bounce-intake}, {@code operator:<user>}
     * @param outcome        what it records
     * @param replyCode      the SMTP (or report) reply code, or null
     * @param replyText      the reply text, clipped to 1,000 characters, or null
     * @param error          why it failed, or what the change was, clipped to 2,000 characters, or null
     * @param enhancedStatus the RFC 3463 code of the reply, or null
     * @param account        the SMTP account used, or null
     * @param mailStatus     the mail's status after this row; null when it does not change it
     * @param event          the delivery event this row publishes for the mail (or {@code recipient}); null for none
     * @param recipient      the one recipient this row concerns; null for the mail as a whole
     * @param nextAttemptAt  for a deferral, when the next attempt is due; else null
     * @param results        per-recipient results written with it, each also a delivery event when it is one
     *                       ({@link #eventOf(RecipientStatus)})
     */
    record Row(Long mailId, Instant startedAt, Instant finishedAt, String server, String owner, AttemptOutcome outcome,
               Integer replyCode, String replyText, String error, String enhancedStatus, String account,
               MailStatus mailStatus, EventType event, String recipient, Instant nextAttemptAt,
               List<RecipientResult> results) {

        Row {
            results = List.copyOf(results);
        }

        /** A change of a mail that is no attempt: its status, its event, and why. */
        static Row change(long mailId, Instant at, String server, String owner, AttemptOutcome outcome,
                          MailStatus mailStatus, EventType event, String error) {
            return new Row(mailId, at, at, server, owner, outcome, null, null, error, null, null, mailStatus, event,
                    null, null, List.of());
        }

        /** @return the same row with per-recipient results */
        Row withResults(List<RecipientResult> others) {
            return new Row(mailId, startedAt, finishedAt, server, owner, outcome, replyCode, replyText, error,
                    enhancedStatus, account, mailStatus, event, recipient, nextAttemptAt, others);
        }
    }

    /**
     * @param status a recipient's result
     * @return the delivery event it publishes: {@code sent}, {@code refused} or {@code suppressed}; null for a
     *         deferral (the mail's own event tells it) and for the states a report writes (its row's event does)
     */
    static EventType eventOf(RecipientStatus status) {
        return switch (status) {
            case SENT -> EventType.SENT;
            case REFUSED -> EventType.REFUSED;
            case SUPPRESSED -> EventType.SUPPRESSED;
            default -> null;
        };
    }

    private static final String COLUMNS = "MAIL_ID, STARTED_AT, FINISHED_AT, SERVER_INSTANCE, LEASE_OWNER, OUTCOME,"
            + " SMTP_REPLY_CODE, SMTP_REPLY_TEXT, ERROR, ENHANCED_STATUS, SMTP_ACCOUNT, MAIL_STATUS, EVENT_TYPE,"
            + " RECIPIENT, NEXT_ATTEMPT_AT, RESULTS";

    private static final String VALUES = "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?";

    static final String INSERT_RECIPIENT = "INSERT INTO MAIL_RECIPIENT (MAIL_ID, ADDRESS, ATTEMPT_ID, STATUS, REPLY_CODE,"
            + " ENHANCED_STATUS, REPLY_TEXT, UPDATED_AT) VALUES (?, ?, ?, ?, ?, ?, ?, ?)";

    /**
     * Inserts {@code rows} ({@link #insert(Connection, DatabaseKind, List, StatusCounts.Change)}) and then adds the
     * statuses they set to the counts ({@link StatusCounts}): for a caller whose only count change is what its rows
     * set, and whose last write this is.
     *
     * @param c    the transaction's connection
     * @param d    the database
     * @param rows the rows, in the order they happened; nothing is written for none
     * @throws SQLException when the database refuses
     */
    static void insert(Connection c, DatabaseKind d, List<Row> rows) throws SQLException {
        if (rows.isEmpty()) {
            return;
        }
        StatusCounts.Change counts = new StatusCounts.Change();
        insert(c, d, rows, counts);
        counts.apply(c, d);
    }

    /**
     * Inserts {@code rows} in order: those without per-recipient results in one batch (one multi-row statement on
     * PostgreSQL), those with results each with its id first, then their results. Per-recipient results are
     * de-duplicated by lower-case address, the first kept. Each row that sets a counted status
     * ({@link StatusCounts#COUNTED}) is added to {@code counts}, which the caller applies as its last write.
     *
     * @param c      the transaction's connection
     * @param d      the database
     * @param rows   the rows, in the order they happened; nothing is written for none
     * @param counts the transaction's changes to the counts, which this adds to
     * @throws SQLException when the database refuses
     */
    static void insert(Connection c, DatabaseKind d, List<Row> rows, StatusCounts.Change counts) throws SQLException {
        if (rows.isEmpty()) {
            return;
        }
        for (Row row : rows) {
            if (row.mailStatus() != null) {
                counts.arrived(row.mailStatus());
            }
        }
        holdEventClock(c, d);
        List<Row> plain = new ArrayList<>(rows.size());
        List<Row> withResults = new ArrayList<>();
        for (Row row : rows) {
            (row.results().isEmpty() ? plain : withResults).add(row);
        }
        if (!plain.isEmpty()) {
            try (Batch batch = new Batch(c, d, "INSERT INTO MAIL_ATTEMPT (ID, " + COLUMNS + ") VALUES ("
                    + nextId(d) + ", " + VALUES + ")")) {
                for (Row row : plain) {
                    bind(batch.statement(), 1, row, 0);
                    batch.add();
                }
                batch.execute();
            }
        }
        for (Row row : withResults) {
            long id = allocate(c, d);
            Map<String, RecipientResult> unique = unique(row.results());
            try (PreparedStatement s = c.prepareStatement("INSERT INTO MAIL_ATTEMPT (ID, " + COLUMNS + ") VALUES (?, "
                    + VALUES + ")")) {
                s.setLong(1, id);
                bind(s, 2, row, unique.size());
                s.executeUpdate();
            }
            try (Batch batch = new Batch(c, d, INSERT_RECIPIENT)) {
                for (RecipientResult r : unique.values()) {
                    PreparedStatement s = batch.statement();
                    s.setLong(1, row.mailId());
                    s.setString(2, Sql.clip(r.address(), 254));
                    s.setLong(3, id);
                    s.setString(4, r.status().name());
                    if (r.replyCode() == null) {
                        s.setNull(5, Types.INTEGER);
                    } else {
                        s.setInt(5, r.replyCode());
                    }
                    setText(s, 6, r.enhancedStatus());
                    setText(s, 7, Sql.clip(r.replyText(), 1000));
                    SqlTime.set(s, 8, row.finishedAt());
                    batch.add();
                }
                batch.execute();
            }
        }
    }

    /**
     * @param results per-recipient results
     * @return them by lower-case address, the first of each kept, in address order (the order of their events)
     */
    static Map<String, RecipientResult> unique(List<RecipientResult> results) {
        Map<String, RecipientResult> unique = new LinkedHashMap<>();
        results.stream().sorted(Comparator.comparing(r -> r.address().toLowerCase(Locale.ROOT)))
                .forEach(r -> unique.putIfAbsent(r.address().toLowerCase(Locale.ROOT), r));
        return unique;
    }

    private static void bind(PreparedStatement s, int from, Row a, int results) throws SQLException {
        int i = from;
        if (a.mailId() == null) {
            s.setNull(i++, Types.BIGINT);
        } else {
            s.setLong(i++, a.mailId());
        }
        SqlTime.set(s, i++, a.startedAt());
        SqlTime.set(s, i++, a.finishedAt());
        s.setString(i++, Sql.clip(a.server(), 200));
        s.setString(i++, Sql.clip(a.owner(), 200));
        s.setString(i++, a.outcome().name());
        if (a.replyCode() == null) {
            s.setNull(i++, Types.INTEGER);
        } else {
            s.setInt(i++, a.replyCode());
        }
        setText(s, i++, Sql.clip(a.replyText(), 1000));
        setText(s, i++, Sql.clip(a.error(), 2000));
        setText(s, i++, a.enhancedStatus() != null && a.enhancedStatus().length() <= 11 ? a.enhancedStatus() : null);
        setText(s, i++, a.account());
        setText(s, i++, a.mailStatus() == null ? null : a.mailStatus().name());
        setText(s, i++, a.event() == null ? null : a.event().name());
        setText(s, i++, Sql.clip(a.recipient(), 254));
        SqlTime.set(s, i++, a.nextAttemptAt());
        s.setInt(i, results);
    }

    /**
     * Takes the event clock's row lock where ids must be handed out in commit order (Derby, MariaDB); on
     * PostgreSQL the publishers read transaction ids instead, and nothing is taken.
     */
    static void holdEventClock(Connection c, DatabaseKind kind) throws SQLException {
        if (kind == DatabaseKind.POSTGRESQL) {
            return;
        }
        try (PreparedStatement s = c.prepareStatement("UPDATE EVENT_CLOCK SET TICK = TICK + 1 WHERE ID = 1")) {
            s.executeUpdate();
        }
    }

    /** @return the SQL that takes the next log id in an INSERT's VALUES */
    static String nextId(DatabaseKind kind) {
        return kind == DatabaseKind.POSTGRESQL ? "nextval('mail_log_seq')" : "NEXT VALUE FOR MAIL_LOG_SEQ";
    }

    private static long allocate(Connection c, DatabaseKind kind) throws SQLException {
        String sql = switch (kind) {
            case POSTGRESQL -> "SELECT nextval('mail_log_seq')";
            case DERBY -> "VALUES NEXT VALUE FOR MAIL_LOG_SEQ";
            default -> "SELECT NEXT VALUE FOR MAIL_LOG_SEQ";
        };
        try (PreparedStatement s = c.prepareStatement(sql); ResultSet r = s.executeQuery()) {
            r.next();
            return r.getLong(1);
        }
    }
}
