package dev.mailqueue.mail.control;

import dev.mailqueue.account.control.Accounts;
import dev.mailqueue.api.MailLimits;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.mail.entity.MailMessage;
import dev.mailqueue.mail.entity.Utc;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns a validated {@link MailRequest} into a new QUEUED row: its Message-ID, default priority,
 * due time, {@code mailqueue.delivery.max-attempts} attempts (1 or more), and the SMTP account it is
 * routed to ({@link Accounts#route}).
 */
@ApplicationScoped
public class MailFactory {

    @Inject
    MessageIdFactory messageIds;

    @Inject
    Accounts accounts;

    @Inject
    @ConfigProperty(name = "mailqueue.delivery.max-attempts", defaultValue = "5")
    int maxAttempts;

    /**
     * @param request a request that passed {@link MailRequestValidator}
     * @param now     UTC now, the row's created-at
     * @return a new, unpersisted row
     */
    public MailMessage create(MailRequest request, LocalDateTime now) {
        MailMessage mail = new MailMessage();
        mail.setMessageId(messageIds.create(request.getFrom()));
        mail.setStatus(MailStatus.QUEUED);
        mail.setPriority(request.getPriority() == null ? MailLimits.PRIORITY_DEFAULT : request.getPriority());
        mail.setCreatedAt(now);
        LocalDateTime notBefore = Utc.of(request.getNotBefore());
        mail.setNotBefore(notBefore == null || notBefore.isBefore(now) ? now : notBefore);
        mail.setAttemptsRemaining(Math.max(1, maxAttempts));
        mail.setFromAddress(request.getFrom());
        mail.setFromName(blankToNull(request.getFromName()));
        mail.setReplyTo(blankToNull(request.getReplyTo()));
        mail.setTo(copy(request.getTo()));
        mail.setCc(copy(request.getCc()));
        mail.setBcc(copy(request.getBcc()));
        mail.setSubject(request.getSubject());
        mail.setTextBody(request.getText());
        mail.setHtmlBody(request.getHtml());
        mail.setSmtpAccount(accounts.route(request.getAccount(), request.getFrom()).name());
        return mail;
    }

    private static List<String> copy(List<String> addresses) {
        return addresses == null ? new ArrayList<>() : new ArrayList<>(addresses);
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }
}
