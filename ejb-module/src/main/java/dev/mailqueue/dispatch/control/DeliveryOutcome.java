package dev.mailqueue.dispatch.control;

import java.time.LocalDateTime;

/**
 * What one attempt at one mail came to, ready to be recorded.
 *
 * @param mailId            the row
 * @param attemptsRemaining attempts left before this one, 1 or more
 * @param startedAt         UTC, when the attempt began
 * @param finishedAt        UTC, when it ended
 * @param sent              true when the SMTP server accepted the message
 * @param reply             the server's reply, {@link SmtpReply#NONE} when none came
 * @param error             why it failed, or null when sent
 * @param account           the SMTP account that sent it or made the last try, or null when none was tried
 */
public record DeliveryOutcome(long mailId, int attemptsRemaining, LocalDateTime startedAt,
                              LocalDateTime finishedAt, boolean sent, SmtpReply reply, String error,
                              String account) {
}
