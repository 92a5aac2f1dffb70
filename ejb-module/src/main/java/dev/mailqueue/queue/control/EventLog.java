package dev.mailqueue.queue.control;

import dev.mailqueue.api.EventType;
import dev.mailqueue.mail.entity.Texts;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.List;

import static dev.mailqueue.queue.control.Sql.setText;

/**
 * Writes delivery events (MAIL_EVENT, the outbox) in the caller's connection, so each lands in the
 * transaction of the change it reports. The database numbers them (an identity column): one mail's events
 * are numbered in the order they were written, whichever server wrote them.
 */
final class EventLog {

    static final String INSERT_EVENT = "INSERT INTO MAIL_EVENT (MAIL_ID, EVENT_TYPE, OCCURRED_AT, RECIPIENT,"
            + " REPLY_CODE, ENHANCED_STATUS, DETAIL, NEXT_ATTEMPT_AT, PUBLISHED) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0)";

    private EventLog() {
    }

    /**
     * One event to write.
     *
     * @param mailId         the mail, or null for an event about an address only (unsubscribed)
     * @param type           what happened
     * @param at             when
     * @param recipient      the recipient it concerns, or null for all the recipients the change settled
     * @param replyCode      the SMTP reply code, or null
     * @param enhancedStatus the RFC 3463 enhanced status code, or null
     * @param detail         the server's reply text or the reason, clipped to 1,000 characters, or null
     * @param nextAttemptAt  for {@link EventType#DEFERRED}: when the next attempt is due; else null
     */
    record Row(Long mailId, EventType type, Instant at, String recipient, Integer replyCode, String enhancedStatus,
               String detail, Instant nextAttemptAt) {

        static Row of(long mailId, EventType type, Instant at, String recipient, String detail) {
            return new Row(mailId, type, at, recipient, null, null, detail, null);
        }
    }

    /** Inserts {@code rows} in one JDBC batch; nothing for none. */
    static void insert(Connection c, Dialect d, List<Row> rows) throws SQLException {
        if (rows.isEmpty()) {
            return;
        }
        try (Batch batch = new Batch(c, d.kind(), INSERT_EVENT)) {
            PreparedStatement s = batch.statement();
            for (Row e : rows) {
                if (e.mailId() == null) {
                    s.setNull(1, Types.BIGINT);
                } else {
                    s.setLong(1, e.mailId());
                }
                s.setString(2, e.type().name());
                SqlTime.set(s, 3, e.at());
                setText(s, 4, Texts.clip(e.recipient(), 254));
                if (e.replyCode() == null) {
                    s.setNull(5, Types.INTEGER);
                } else {
                    s.setInt(5, e.replyCode());
                }
                setText(s, 6, Texts.clip(e.enhancedStatus(), 16));
                setText(s, 7, Texts.clip(e.detail(), 1000));
                SqlTime.set(s, 8, e.nextAttemptAt());
                batch.add();
            }
            batch.execute();
        }
    }
}
