package dev.mailqueue.dispatch.control;

import jakarta.mail.Address;
import jakarta.mail.internet.MimeMessage;

import java.time.LocalDateTime;
import java.util.List;

/**
 * A claimed mail on its way to the SMTP server: the row's id, attempts remaining and expiry, and either
 * the composed message with the envelope recipients still open, or the reason it could not be composed.
 *
 * @param mailId            the row
 * @param attemptsRemaining attempts left before this one, 1 or more
 * @param expiresAt         UTC time after which it must not be sent, or null for no limit
 * @param message           the MIME message, or null when composing failed
 * @param recipients        envelope recipients (RCPT TO) for this attempt: all of the mail's, less those
 *                          an earlier attempt settled (accepted or refused for good); null with no message
 * @param settled           true when an earlier attempt settled some recipients (its outcomes are then
 *                          recorded per recipient)
 * @param anyAccepted       true when an earlier attempt had some recipient accepted
 * @param refusedEarlier    recipients an earlier attempt had refused for good, to be named in last_error
 * @param composeError      why composing failed, or null
 * @param account           the SMTP account the mail was routed to; null for the default account
 */
public record OutgoingMail(long mailId, int attemptsRemaining, LocalDateTime expiresAt, MimeMessage message,
                           Address[] recipients, boolean settled, boolean anyAccepted, List<String> refusedEarlier,
                           String composeError, String account) {
}
