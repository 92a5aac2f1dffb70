package dev.mailqueue.dispatch.control;

import dev.mailqueue.mail.entity.MailMessage;
import jakarta.annotation.Resource;
import jakarta.batch.api.chunk.ItemProcessor;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Named;
import jakarta.mail.MessagingException;
import jakarta.mail.Session;

/**
 * Turns each claimed row into an {@link OutgoingMail}: the composed MIME message, or the reason it
 * could not be composed, which the writer then records as a failed attempt.
 */
@Named("MailComposer")
@Dependent // a new instance per step execution, as batch artifacts need
public class MailComposer implements ItemProcessor {

    @Resource(lookup = "mail/mailqueue")
    Session session;

    @Override
    public Object processItem(Object item) {
        MailMessage mail = (MailMessage) item;
        try {
            return new OutgoingMail(mail.getId(), mail.getAttemptsRemaining(),
                    MimeMessageFactory.compose(session, mail), null, mail.getSmtpAccount());
        } catch (MessagingException | RuntimeException e) {
            return new OutgoingMail(mail.getId(), mail.getAttemptsRemaining(), null,
                    "cannot compose the message: " + e.getMessage(), mail.getSmtpAccount());
        }
    }
}
