package dev.mailqueue.dispatch.control;

import jakarta.mail.internet.MimeMessage;

/**
 * A claimed mail on its way to the SMTP server: the row's id and attempts remaining, and either the
 * composed message or the reason it could not be composed.
 *
 * @param mailId            the row
 * @param attemptsRemaining attempts left before this one, 1 or more
 * @param message           the MIME message, or null when composing failed
 * @param composeError      why composing failed, or null
 * @param account           the SMTP account the mail was routed to; null for the default account
 */
public record OutgoingMail(long mailId, int attemptsRemaining, MimeMessage message, String composeError,
                           String account) {
}
