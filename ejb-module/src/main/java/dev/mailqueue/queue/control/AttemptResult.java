package dev.mailqueue.queue.control;

import java.time.Instant;
import java.util.List;

/**
 * What one attempt at one mail came to, ready to be recorded.
 *
 * @param mailId            the mail
 * @param lease             the claimer that made the attempt
 * @param server            the server it ran on, for the attempt log
 * @param account           the SMTP account that sent it or made the last try, or null when none was tried
 * @param attemptsRemaining attempts left before this one, 1 or more
 * @param expiresAt         after this the mail must not be sent, or null
 * @param startedAt         when the attempt began
 * @param finishedAt        when it ended
 * @param verdict           how it ended
 * @param replyCode         the server's last reply code, or null when none came
 * @param replyText         that reply's text, or null
 * @param enhancedStatus    its RFC 3463 enhanced status code, or null
 * @param error             why it failed (or, when sent, which recipients refused it), or null
 * @param recipients        per-recipient outcomes when the server treated recipients differently or the
 *                          mail already had some settled; empty otherwise
 */
public record AttemptResult(long mailId, Lease lease, String server, String account, int attemptsRemaining,
                            Instant expiresAt, Instant startedAt, Instant finishedAt, Verdict verdict,
                            Integer replyCode, String replyText, String enhancedStatus, String error,
                            List<RecipientResult> recipients) implements Transition.Outcome {

    /** Copies the recipient list. */
    public AttemptResult {
        recipients = List.copyOf(recipients);
    }

    /** @return the claimer's name in the log */
    public String owner() {
        return lease.owner();
    }

    /** @return true when the server accepted the mail for every recipient still open */
    public boolean sent() {
        return verdict == Verdict.SENT;
    }

    /** @return the same attempt with another error text, e.g. when its per-recipient rows could not be kept */
    public AttemptResult withError(String otherError, List<RecipientResult> otherRecipients) {
        return new AttemptResult(mailId, lease, server, account, attemptsRemaining, expiresAt, startedAt, finishedAt,
                verdict, replyCode, replyText, enhancedStatus, otherError, otherRecipients);
    }
}
