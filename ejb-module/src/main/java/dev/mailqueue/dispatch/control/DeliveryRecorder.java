package dev.mailqueue.dispatch.control;

import dev.mailqueue.api.MailStatus;
import dev.mailqueue.mail.entity.AttemptOutcome;
import dev.mailqueue.mail.entity.MailAttempt;
import dev.mailqueue.mail.entity.MailMessage;
import dev.mailqueue.mail.entity.Texts;
import jakarta.ejb.Stateless;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;

import java.util.List;
import java.util.logging.Logger;

/**
 * Records the outcomes of a chunk in the chunk's transaction: the mail row's new state, only while
 * the claimer still holds the lease (a claimer whose lease was taken over must not overwrite the new
 * owner's row), and one attempt-log row per attempt in every case.
 */
@Stateless
public class DeliveryRecorder {

    private static final Logger LOG = Logger.getLogger(DeliveryRecorder.class.getName());

    /** Noted on an attempt whose claimer had lost the lease when the outcome came to be recorded. */
    static final String LEASE_LOST = "lease lost before the outcome was recorded; row left to its new owner";

    @PersistenceContext(unitName = "mailqueue")
    EntityManager em;

    /**
     * @param outcomes       the chunk's outcomes
     * @param leaseOwner     the claimer that made the attempts
     * @param serverInstance this server's name, for the attempt log
     * @param policy         what a failure leads to
     * @return how many outcomes were applied to their row (the others had lost their lease)
     */
    public int record(List<DeliveryOutcome> outcomes, String leaseOwner, String serverInstance, RetryPolicy policy) {
        boolean[] held = new boolean[outcomes.size()];
        int applied = 0;
        for (int i = 0; i < held.length; i++) { // the row updates first ...
            DeliveryOutcome outcome = outcomes.get(i);
            held[i] = apply(outcome, leaseOwner, policy);
            if (held[i]) {
                applied++;
            } else {
                LOG.warning(() -> "Mail " + outcome.mailId() + ": " + LEASE_LOST + " (claimer " + leaseOwner + ")");
            }
        }
        for (int i = 0; i < held.length; i++) { // ... then the attempt rows, which go out as one JDBC batch
            DeliveryOutcome outcome = outcomes.get(i);
            String error = held[i] ? outcome.error()
                    : outcome.error() == null ? LEASE_LOST : outcome.error() + "; " + LEASE_LOST;
            em.persist(new MailAttempt(outcome.mailId(), outcome.startedAt(), outcome.finishedAt(), serverInstance,
                    leaseOwner, outcome.sent() ? AttemptOutcome.SENT : AttemptOutcome.FAILED,
                    outcome.reply().code(), outcome.reply().text(), error));
        }
        return applied;
    }

    private boolean apply(DeliveryOutcome outcome, String leaseOwner, RetryPolicy policy) {
        if (outcome.sent()) {
            return em.createNamedQuery(MailMessage.MARK_SENT)
                    .setParameter("id", outcome.mailId())
                    .setParameter("owner", leaseOwner)
                    .setParameter("at", outcome.finishedAt())
                    .setParameter("startedAt", outcome.startedAt())
                    .executeUpdate() == 1;
        }
        MailStatus next = policy.statusAfterFailure(outcome.attemptsRemaining());
        return em.createNamedQuery(MailMessage.MARK_FAILED_ATTEMPT)
                .setParameter("id", outcome.mailId())
                .setParameter("owner", leaseOwner)
                .setParameter("status", next)
                .setParameter("remaining", outcome.attemptsRemaining() - 1)
                .setParameter("notBefore", next == MailStatus.QUEUED
                        ? policy.nextAttemptAt(outcome.finishedAt()) : outcome.finishedAt())
                .setParameter("startedAt", outcome.startedAt())
                .setParameter("error", Texts.clip(outcome.error(), 2000))
                .executeUpdate() == 1;
    }
}
