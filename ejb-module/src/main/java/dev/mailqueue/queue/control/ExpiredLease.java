package dev.mailqueue.queue.control;

/**
 * A mail whose claimer's lease ran out before the claimer recorded its outcome: the claimer died, or could not
 * renew its lease for a whole lease time. A claimer sends its mails one at a time in its claims' order and lets
 * a mail's DATA end only once the outcome of the mail before is committed, so of its unrecorded mails only the
 * first in that order may have reached the server: that one is in doubt, the others were never begun.
 *
 * @param mailId            the mail
 * @param owner             the claimer that held it
 * @param inDoubt           true for the claimer's first unrecorded mail, which the server may have taken
 * @param attemptsRemaining attempts left before the lost one
 */
public record ExpiredLease(long mailId, String owner, boolean inDoubt, int attemptsRemaining) {
}
