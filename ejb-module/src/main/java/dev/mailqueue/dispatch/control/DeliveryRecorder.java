package dev.mailqueue.dispatch.control;

import dev.mailqueue.dispatch.control.DeliveryOutcome.Verdict;
import dev.mailqueue.mail.entity.AttemptOutcome;
import dev.mailqueue.mail.entity.MailAttempt;
import dev.mailqueue.mail.entity.Texts;
import jakarta.ejb.Stateless;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.persistence.PersistenceException;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Logger;

/**
 * Records the outcomes of a chunk in the chunk's transaction: the mail rows' new state, only where the
 * claimer still holds the lease (a claimer whose lease was taken over must not overwrite the new
 * owner's row), and one attempt-log row per attempt in every case (a mail that expired unsent made no
 * attempt). One JDBC batch for the attempted rows, one for expired ones, one for the attempt rows, and
 * two for per-recipient rows when there are any: a few round trips a chunk, not one per mail. What a
 * result leads to is {@link Disposition}'s decision.
 */
@Stateless
public class DeliveryRecorder {

    private static final Logger LOG = Logger.getLogger(DeliveryRecorder.class.getName());

    /** Noted on an attempt whose claimer had lost the lease when the outcome came to be recorded. */
    static final String LEASE_LOST = "lease lost before the outcome was recorded; row left to its new owner";

    /**
     * An attempt's result; {@code ?}s: status, remaining, not-before, last-attempt-at, sent-at, error, id,
     * owner. Clears the lease and the send-started mark.
     */
    static final String MARK_ATTEMPTED = "UPDATE MAIL_MESSAGE SET STATUS = ?, ATTEMPTS_REMAINING = ?, NOT_BEFORE = ?,"
            + " LAST_ATTEMPT_AT = ?, SENT_AT = ?, LAST_ERROR = ?, LEASE_OWNER = NULL, LEASE_EXPIRES_AT = NULL,"
            + " SEND_STARTED_AT = NULL WHERE ID = ? AND STATUS = 'SENDING' AND LEASE_OWNER = ?";

    /** A mail past its expires-at, not attempted; {@code ?}s: error, id, owner. */
    static final String MARK_EXPIRED = "UPDATE MAIL_MESSAGE SET STATUS = 'EXPIRED', LAST_ERROR = ?,"
            + " LEASE_OWNER = NULL, LEASE_EXPIRES_AT = NULL, SEND_STARTED_AT = NULL"
            + " WHERE ID = ? AND STATUS = 'SENDING' AND LEASE_OWNER = ?";

    /** Replaces a recipient's row: first this delete ({@code ?}s: mail id, address), then {@link #INSERT_RECIPIENT}. */
    static final String DELETE_RECIPIENT = "DELETE FROM MAIL_RECIPIENT WHERE MAIL_ID = ? AND ADDRESS = ?";

    /** {@code ?}s: mail id, address, status, reply code, enhanced status, reply text, updated-at. */
    static final String INSERT_RECIPIENT = "INSERT INTO MAIL_RECIPIENT (MAIL_ID, ADDRESS, STATUS, REPLY_CODE,"
            + " ENHANCED_STATUS, REPLY_TEXT, UPDATED_AT) VALUES (?, ?, ?, ?, ?, ?, ?)";

    @PersistenceContext(unitName = "mailqueue")
    EntityManager em;

    /**
     * @param outcomes       the chunk's outcomes
     * @param leaseOwner     the claimer that made the attempts
     * @param serverInstance this server's name, for the attempt log
     * @param policy         what a failure leads to
     * @return how many outcomes were applied to their row (the others had lost their lease)
     * @throws PersistenceException when the database refuses the updates
     */
    public int record(List<DeliveryOutcome> outcomes, String leaseOwner, String serverInstance, RetryPolicy policy) {
        boolean[] held = apply(outcomes, leaseOwner, policy);
        int applied = 0;
        for (int i = 0; i < held.length; i++) {
            DeliveryOutcome outcome = outcomes.get(i);
            String error = outcome.error();
            if (held[i]) {
                applied++;
            } else {
                LOG.warning(() -> "Mail " + outcome.mailId() + ": " + LEASE_LOST + " (claimer " + leaseOwner + ")");
                error = error == null ? LEASE_LOST : error + "; " + LEASE_LOST;
            }
            if (outcome.verdict() == Verdict.EXPIRED) {
                continue; // not an attempt: nothing was sent
            }
            em.persist(new MailAttempt(outcome.mailId(), outcome.startedAt(), outcome.finishedAt(), serverInstance,
                    leaseOwner, outcome.sent() ? AttemptOutcome.SENT : AttemptOutcome.FAILED,
                    outcome.reply().code(), outcome.reply().text(), error, outcome.account())
                    .withEnhancedStatus(outcome.reply().enhancedStatus())); // inserted as one batch at commit
        }
        return applied;
    }

    /** @return per outcome, whether its row was still leased to {@code leaseOwner} and so was updated */
    private boolean[] apply(List<DeliveryOutcome> outcomes, String leaseOwner, RetryPolicy policy) {
        List<Integer> attempted = new ArrayList<>();
        List<Integer> expired = new ArrayList<>();
        for (int i = 0; i < outcomes.size(); i++) {
            (outcomes.get(i).verdict() == Verdict.EXPIRED ? expired : attempted).add(i);
        }
        boolean[] held = new boolean[outcomes.size()];
        Connection connection = em.unwrap(Connection.class);
        try {
            // A statement is prepared only for a group that has rows: closing one that never ran trips
            // MariaDB Connector/J under Liberty's statement wrapper.
            if (!attempted.isEmpty()) {
                try (PreparedStatement update = connection.prepareStatement(MARK_ATTEMPTED)) {
                    for (int i : attempted) {
                        DeliveryOutcome outcome = outcomes.get(i);
                        Disposition next = Disposition.after(outcome, policy);
                        update.setString(1, next.status().name());
                        update.setInt(2, next.attemptsRemaining());
                        update.setTimestamp(3, Timestamp.valueOf(next.notBefore()));
                        update.setTimestamp(4, Timestamp.valueOf(outcome.startedAt()));
                        if (outcome.sent()) {
                            update.setTimestamp(5, Timestamp.valueOf(outcome.finishedAt()));
                        } else {
                            update.setNull(5, Types.TIMESTAMP);
                        }
                        update.setString(6, Texts.clip(next.error(), 2000));
                        update.setLong(7, outcome.mailId());
                        update.setString(8, leaseOwner);
                        update.addBatch();
                    }
                    mark(held, attempted, update.executeBatch());
                }
            }
            if (!expired.isEmpty()) {
                try (PreparedStatement update = connection.prepareStatement(MARK_EXPIRED)) {
                    for (int i : expired) {
                        DeliveryOutcome outcome = outcomes.get(i);
                        update.setString(1, Texts.clip(outcome.error(), 2000));
                        update.setLong(2, outcome.mailId());
                        update.setString(3, leaseOwner);
                        update.addBatch();
                    }
                    mark(held, expired, update.executeBatch());
                }
            }
            recordRecipients(connection, outcomes, held);
            return held;
        } catch (SQLException e) {
            throw new PersistenceException("could not record " + outcomes.size() + " outcomes of " + leaseOwner, e);
        }
    }

    /** Per-recipient rows of the outcomes that have them and whose row was still ours. */
    private static void recordRecipients(Connection connection, List<DeliveryOutcome> outcomes, boolean[] held)
            throws SQLException {
        List<DeliveryOutcome> with = new ArrayList<>();
        for (int i = 0; i < outcomes.size(); i++) {
            if (held[i] && !outcomes.get(i).recipients().isEmpty()) {
                with.add(outcomes.get(i));
            }
        }
        if (with.isEmpty()) {
            return;
        }
        try (PreparedStatement delete = connection.prepareStatement(DELETE_RECIPIENT)) {
            for (DeliveryOutcome outcome : with) {
                for (RecipientOutcome r : outcome.recipients()) {
                    delete.setLong(1, outcome.mailId());
                    delete.setString(2, r.address());
                    delete.addBatch();
                }
            }
            delete.executeBatch();
        }
        try (PreparedStatement insert = connection.prepareStatement(INSERT_RECIPIENT)) {
            for (DeliveryOutcome outcome : with) {
                for (RecipientOutcome r : outcome.recipients()) {
                    insert.setLong(1, outcome.mailId());
                    insert.setString(2, r.address());
                    insert.setString(3, r.status().name());
                    if (r.reply().code() == null) {
                        insert.setNull(4, Types.INTEGER);
                    } else {
                        insert.setInt(4, r.reply().code());
                    }
                    insert.setString(5, r.reply().enhancedStatus());
                    insert.setString(6, Texts.clip(r.reply().text(), 1000));
                    insert.setTimestamp(7, Timestamp.valueOf(outcome.finishedAt()));
                    insert.addBatch();
                }
            }
            insert.executeBatch();
        }
    }

    /**
     * A count of 1 means the row was still ours. A driver that cannot tell
     * ({@link Statement#SUCCESS_NO_INFO}) is taken as held: the update itself was conditional on the
     * lease, so no other owner's row was touched; only the attempt log then misses the note.
     */
    private static void mark(boolean[] held, List<Integer> positions, int[] counts) {
        for (int k = 0; k < positions.size(); k++) {
            held[positions.get(k)] = counts[k] == 1 || counts[k] == Statement.SUCCESS_NO_INFO;
        }
    }
}
