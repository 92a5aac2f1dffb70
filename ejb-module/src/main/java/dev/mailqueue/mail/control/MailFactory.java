package dev.mailqueue.mail.control;

import dev.mailqueue.api.Attachment;
import dev.mailqueue.account.control.Accounts;
import dev.mailqueue.api.MailLimits;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.mail.entity.MailAttachment;
import dev.mailqueue.mail.entity.MailHeader;
import dev.mailqueue.mail.entity.MailMessage;
import dev.mailqueue.mail.entity.Utc;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Turns a validated {@link MailRequest} into new QUEUED rows: its Message-ID, default priority, due
 * time, {@code mailqueue.delivery.max-attempts} attempts (1 or more, default 100), and its expiry: the
 * earlier of the request's expiresAt and {@code mailqueue.delivery.max-lifetime.ms} after now (default
 * 432,000,000 ms = 5 days, Postfix's {@code maximal_queue_lifetime}; 0 for no limit), with its
 * attachments and custom header fields as parts still to be persisted ({@link MailParts#persist}), and
 * the SMTP account it is routed to ({@link Accounts#route}).
 */
@ApplicationScoped
public class MailFactory {

    @Inject
    MessageIdFactory messageIds;

    @Inject
    Accounts accounts;

    @Inject
    @ConfigProperty(name = "mailqueue.delivery.max-attempts", defaultValue = "100")
    int maxAttempts;

    @Inject
    @ConfigProperty(name = "mailqueue.delivery.max-lifetime.ms", defaultValue = "432000000")
    long maxLifetimeMillis;

    /**
     * @param request a request that passed {@link MailRequestValidator}
     * @param now     UTC now, the rows' created-at
     * @return new, unpersisted rows: one, or with {@link MailRequest#isPerRecipient()} one per recipient
     *         (to, then cc, then bcc), each addressed To its own recipient only, without Cc or Bcc
     */
    public List<MailMessage> createAll(MailRequest request, LocalDateTime now) {
        if (!request.isPerRecipient()) {
            return List.of(create(request, now));
        }
        List<MailMessage> copies = new ArrayList<>();
        for (List<String> kind : List.of(copy(request.getTo()), copy(request.getCc()), copy(request.getBcc()))) {
            for (String recipient : kind) {
                MailMessage mail = create(request, now);
                mail.setTo(List.of(recipient));
                mail.setCc(List.of());
                mail.setBcc(List.of());
                copies.add(mail);
            }
        }
        return copies;
    }

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
        mail.setAttemptsRemaining(attempts());
        mail.setExpiresAt(expiry(Utc.of(request.getExpiresAt()), now));
        mail.setFromAddress(request.getFrom());
        mail.setFromName(blankToNull(request.getFromName()));
        mail.setReplyTo(blankToNull(request.getReplyTo()));
        mail.setTo(copy(request.getTo()));
        mail.setCc(copy(request.getCc()));
        mail.setBcc(copy(request.getBcc()));
        mail.setSubject(request.getSubject());
        mail.setTextBody(request.getText());
        mail.setHtmlBody(request.getHtml());
        mail.setAttachments(attachments(request.getAttachments()));
        mail.setHeaders(headers(request.getHeaders()));
        mail.setSmtpAccount(accounts.route(request.getAccount(), request.getFrom()).name());
        return mail;
    }

    /** @return the attempts a mail is queued (or requeued) with: {@code mailqueue.delivery.max-attempts}, 1 or more */
    public int attempts() {
        return Math.max(1, maxAttempts);
    }

    /**
     * @param requested the caller's expiry (UTC), or null for none
     * @param now       UTC now
     * @return the earlier of the caller's expiry and now plus the queue's maximum lifetime (if set), or
     *         null when there is neither
     */
    public LocalDateTime expiry(LocalDateTime requested, LocalDateTime now) {
        LocalDateTime lifetime = maxLifetimeMillis > 0 ? now.plusNanos(maxLifetimeMillis * 1_000_000L) : null;
        if (requested == null || lifetime != null && lifetime.isBefore(requested)) {
            return lifetime;
        }
        return requested;
    }

    private static List<MailAttachment> attachments(List<Attachment> attachments) {
        List<MailAttachment> result = new ArrayList<>();
        if (attachments != null) {
            for (Attachment a : attachments) {
                result.add(new MailAttachment(result.size(), a.getFilename().strip(),
                        AttachmentPolicy.contentTypeOrDefault(a.getContentType()), a.getContent()));
            }
        }
        return result;
    }

    private static List<MailHeader> headers(Map<String, String> headers) {
        List<MailHeader> result = new ArrayList<>();
        if (headers != null) {
            headers.forEach((name, value) -> result.add(new MailHeader(result.size(), name, value)));
        }
        return result;
    }

    private static List<String> copy(List<String> addresses) {
        return addresses == null ? new ArrayList<>() : new ArrayList<>(addresses);
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }
}
