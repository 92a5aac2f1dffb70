package dev.mailqueue.dispatch.control;

import java.time.LocalDateTime;
import java.util.List;

/**
 * What one attempt at one mail came to, ready to be recorded.
 *
 * @param mailId            the row
 * @param attemptsRemaining attempts left before this one, 1 or more
 * @param expiresAt         UTC time after which the mail must not be sent, or null
 * @param startedAt         UTC, when the attempt began
 * @param finishedAt        UTC, when it ended
 * @param verdict           how it ended
 * @param reply             the server's reply, {@link SmtpReply#NONE} when none came
 * @param error             why it failed, or null when sent
 * @param recipients        per-recipient outcomes when the server treated recipients differently or the
 *                          mail already had some settled; empty otherwise
 * @param account           the SMTP account that sent it or made the last try, or null when none was tried
 */
public record DeliveryOutcome(long mailId, int attemptsRemaining, LocalDateTime expiresAt, LocalDateTime startedAt,
                              LocalDateTime finishedAt, Verdict verdict, SmtpReply reply, String error,
                              List<RecipientOutcome> recipients, String account) {

    /** How an attempt ended, and so what becomes of the mail. */
    public enum Verdict {
        /** Every recipient is settled and at least one accepted it: SENT. */
        SENT,
        /** Worth another try: QUEUED again after the backoff, while attempts and lifetime remain. */
        TRANSIENT,
        /** Never worth another try: FAILED at once. */
        PERMANENT,
        /** Past its expires-at before it could be sent; not attempted: EXPIRED. */
        EXPIRED
    }

    /**
     * An attempt without per-recipient detail and without an expiry; a failure is classified by its
     * reply ({@link FailureClass}).
     */
    public DeliveryOutcome(long mailId, int attemptsRemaining, LocalDateTime startedAt, LocalDateTime finishedAt,
                           boolean sent, SmtpReply reply, String error, String account) {
        this(mailId, attemptsRemaining, null, startedAt, finishedAt,
                sent ? Verdict.SENT : FailureClass.of(reply) == FailureClass.PERMANENT ? Verdict.PERMANENT : Verdict.TRANSIENT,
                reply, error, List.of(), account);
    }

    /** @return true when the server accepted the mail for every recipient still open */
    public boolean sent() {
        return verdict == Verdict.SENT;
    }
}
