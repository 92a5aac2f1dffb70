package dev.mailqueue.queue.control;

import java.time.Instant;

/**
 * A SENDING row whose lease ran out before its claimer recorded an outcome: the claimer died, or could
 * not renew its lease for a whole lease time.
 *
 * @param mailId            the row
 * @param owner             the claimer that held it
 * @param sendStartedAt     when that claimer began to send it, or null if it never did (then nothing was
 *                          sent and the row simply goes back to the queue)
 * @param attemptsRemaining attempts left before the lost one
 */
public record ExpiredLease(long mailId, String owner, Instant sendStartedAt, int attemptsRemaining) {

    /** @return true when the server may have received the mail: the outcome is in doubt */
    public boolean inDoubt() {
        return sendStartedAt != null;
    }
}
