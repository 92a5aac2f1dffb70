package dev.mailqueue.mail.control;

import dev.mailqueue.api.Attachment;
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
 * Turns a validated {@link MailRequest} into a new QUEUED row: its Message-ID, default priority,
 * due time, and {@code mailqueue.delivery.max-attempts} attempts (1 or more), with its attachments
 * and custom header fields as parts still to be persisted ({@link MailParts#persist}).
 */
@ApplicationScoped
public class MailFactory {

    @Inject
    MessageIdFactory messageIds;

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
        mail.setAttachments(attachments(request.getAttachments()));
        mail.setHeaders(headers(request.getHeaders()));
        return mail;
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
