package dev.mailqueue.dispatch.control;

import dev.mailqueue.api.MailStatus;
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
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Logger;

/**
 * Records the outcomes of a chunk in the chunk's transaction: the mail rows' new state, only where the
 * claimer still holds the lease (a claimer whose lease was taken over must not overwrite the new
 * owner's row), and one attempt-log row per attempt in every case. One JDBC batch for the sent rows,
 * one for the failed ones, one for the attempt rows: three round trips a chunk, not one per mail.
 */
@Stateless
public class DeliveryRecorder {

    private static final Logger LOG = Logger.getLogger(DeliveryRecorder.class.getName());

    /** Noted on an attempt whose claimer had lost the lease when the outcome came to be recorded. */
    static final String LEASE_LOST = "lease lost before the outcome was recorded; row left to its new owner";

    /** A successful attempt; {@code ?}s: sent-at, started-at, id, owner. */
    static final String MARK_SENT = "UPDATE MAIL_MESSAGE SET STATUS = 'SENT', SENT_AT = ?, ATTEMPTS_REMAINING = 0,"
            + " LAST_ATTEMPT_AT = ?, LEASE_OWNER = NULL, LEASE_EXPIRES_AT = NULL, LAST_ERROR = NULL"
            + " WHERE ID = ? AND STATUS = 'SENDING' AND LEASE_OWNER = ?";

    /** A failed attempt; {@code ?}s: status, remaining, not-before, started-at, error, id, owner. */
    static final String MARK_FAILED = "UPDATE MAIL_MESSAGE SET STATUS = ?, ATTEMPTS_REMAINING = ?, NOT_BEFORE = ?,"
            + " LAST_ATTEMPT_AT = ?, LAST_ERROR = ?, LEASE_OWNER = NULL, LEASE_EXPIRES_AT = NULL"
            + " WHERE ID = ? AND STATUS = 'SENDING' AND LEASE_OWNER = ?";

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
            em.persist(new MailAttempt(outcome.mailId(), outcome.startedAt(), outcome.finishedAt(), serverInstance,
                    leaseOwner, outcome.sent() ? AttemptOutcome.SENT : AttemptOutcome.FAILED,
                    outcome.reply().code(), outcome.reply().text(), error,
                    outcome.account())); // inserted as one batch at commit
        }
        return applied;
    }

    /** @return per outcome, whether its row was still leased to {@code leaseOwner} and so was updated */
    private boolean[] apply(List<DeliveryOutcome> outcomes, String leaseOwner, RetryPolicy policy) {
        List<Integer> sentAt = new ArrayList<>();
        List<Integer> failedAt = new ArrayList<>();
        for (int i = 0; i < outcomes.size(); i++) {
            (outcomes.get(i).sent() ? sentAt : failedAt).add(i);
        }
        boolean[] held = new boolean[outcomes.size()];
        Connection connection = em.unwrap(Connection.class);
        try {
            // A statement is prepared only for a group that has rows: closing one that never ran trips
            // MariaDB Connector/J under Liberty's statement wrapper.
            if (!sentAt.isEmpty()) {
                try (PreparedStatement sent = connection.prepareStatement(MARK_SENT)) {
                    for (int i : sentAt) {
                        DeliveryOutcome outcome = outcomes.get(i);
                        sent.setTimestamp(1, Timestamp.valueOf(outcome.finishedAt()));
                        sent.setTimestamp(2, Timestamp.valueOf(outcome.startedAt()));
                        sent.setLong(3, outcome.mailId());
                        sent.setString(4, leaseOwner);
                        sent.addBatch();
                    }
                    mark(held, sentAt, sent.executeBatch());
                }
            }
            if (!failedAt.isEmpty()) {
                try (PreparedStatement failed = connection.prepareStatement(MARK_FAILED)) {
                    for (int i : failedAt) {
                        DeliveryOutcome outcome = outcomes.get(i);
                        MailStatus next = policy.statusAfterFailure(outcome.attemptsRemaining());
                        failed.setString(1, next.name());
                        failed.setInt(2, outcome.attemptsRemaining() - 1);
                        failed.setTimestamp(3, Timestamp.valueOf(next == MailStatus.QUEUED
                                ? policy.nextAttemptAt(outcome.finishedAt()) : outcome.finishedAt()));
                        failed.setTimestamp(4, Timestamp.valueOf(outcome.startedAt()));
                        failed.setString(5, Texts.clip(outcome.error(), 2000));
                        failed.setLong(6, outcome.mailId());
                        failed.setString(7, leaseOwner);
                        failed.addBatch();
                    }
                    mark(held, failedAt, failed.executeBatch());
                }
            }
            return held;
        } catch (SQLException e) {
            throw new PersistenceException("could not record " + outcomes.size() + " outcomes of " + leaseOwner, e);
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
