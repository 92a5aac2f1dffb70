package dev.mailqueue.dispatch.control;

import dev.mailqueue.mail.entity.MailMessage;
import dev.mailqueue.mail.entity.RecipientStatus;
import jakarta.annotation.Resource;
import jakarta.batch.api.chunk.ItemProcessor;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Named;
import jakarta.mail.Address;
import jakarta.mail.MessagingException;
import jakarta.mail.Session;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Turns each claimed row into an {@link OutgoingMail}: the composed MIME message and the envelope
 * recipients still open (an earlier attempt may have settled some: accepted, or refused for good), or
 * the reason it could not be composed, which the writer then records as a permanent failure.
 */
@Named("MailComposer")
@Dependent // a new instance per step execution, as batch artifacts need
public class MailComposer implements ItemProcessor {

    @Resource(lookup = "mail/mailqueue")
    Session session;

    @Override
    public Object processItem(Object item) {
        MailMessage mail = (MailMessage) item;
        Map<String, RecipientStatus> settled = mail.getSettledRecipients();
        boolean anyAccepted = settled.containsValue(RecipientStatus.SENT);
        List<String> refused = settled.entrySet().stream()
                .filter(e -> e.getValue() == RecipientStatus.REFUSED).map(Map.Entry::getKey).sorted().toList();
        try {
            MimeMessage message = MimeMessageFactory.compose(session, mail);
            Address[] open = Arrays.stream(message.getAllRecipients())
                    .filter(a -> !settled.containsKey(key(a)))
                    .toArray(Address[]::new);
            return new OutgoingMail(mail.getId(), mail.getAttemptsRemaining(), mail.getExpiresAt(), message, open,
                    !settled.isEmpty(), anyAccepted, refused, null, mail.getSmtpAccount());
        } catch (MessagingException | RuntimeException e) {
            return new OutgoingMail(mail.getId(), mail.getAttemptsRemaining(), mail.getExpiresAt(), null, null,
                    !settled.isEmpty(), anyAccepted, refused, "cannot compose the message: " + e.getMessage(),
                    mail.getSmtpAccount());
        }
    }

    /** @return the address as the recipient table keys it: the bare address, lower case */
    static String key(Address address) {
        String bare = address instanceof InternetAddress ia ? ia.getAddress() : address.toString();
        return bare.toLowerCase(Locale.ROOT);
    }
}
