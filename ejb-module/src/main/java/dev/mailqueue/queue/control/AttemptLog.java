package dev.mailqueue.queue.control;

import dev.mailqueue.mail.entity.AttemptOutcome;
import dev.mailqueue.mail.entity.Texts;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.List;

import static dev.mailqueue.queue.control.Sql.setText;

/** Writes rows of the attempt log (MAIL_ATTEMPT), for the claim's take-back and for recorded outcomes. */
final class AttemptLog {

    static final String INSERT_ATTEMPT = "INSERT INTO MAIL_ATTEMPT (ID, MAIL_ID, STARTED_AT, FINISHED_AT,"
            + " SERVER_INSTANCE, LEASE_OWNER, OUTCOME, SMTP_REPLY_CODE, SMTP_REPLY_TEXT, ERROR, ENHANCED_STATUS,"
            + " SMTP_ACCOUNT) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

    private AttemptLog() {
    }

    /** One attempt-log row to insert. */
    record Row(long mailId, Instant startedAt, Instant finishedAt, String server, String owner,
               AttemptOutcome outcome, Integer replyCode, String replyText, String error,
               String enhancedStatus, String account) {
    }

    /** Inserts {@code rows}, with ids from the attempt sequence, in one JDBC batch. */
    static void insert(Connection c, Dialect d, List<Row> rows) throws SQLException {
        if (rows.isEmpty()) {
            return;
        }
        long[] ids = d.attemptIds().next(c, d.kind(), rows.size());
        try (Batch batch = new Batch(c, d.kind(), INSERT_ATTEMPT)) {
            PreparedStatement s = batch.statement();
            for (int i = 0; i < rows.size(); i++) {
                Row a = rows.get(i);
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
                batch.add();
            }
            batch.execute();
        }
    }
}
