package dev.mailqueue.mail.control;

import dev.mailqueue.account.control.Accounts;
import dev.mailqueue.address.control.Mailbox;
import dev.mailqueue.api.Attachment;
import dev.mailqueue.api.MailLimits;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.queue.control.AddressNames;
import dev.mailqueue.queue.control.MailGroup;
import dev.mailqueue.queue.control.NewMail;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns a validated request ({@link ParsedRequest}: its addresses parsed, its recipients without repeats) into the
 * mails to queue: its Message-ID, default priority, due time, the attempts and expiry of {@link MailLifetime}, with
 * its attachments and custom header fields, and the SMTP account it is routed to ({@link Accounts#route}).
 */
@ApplicationScoped
public class MailFactory {

    @Inject
    MessageIdFactory messageIds;

    @Inject
    Accounts accounts;

    @Inject
    MailLifetime lifetime;

    /**
     * @param parsed      a request that passed {@link MailRequestValidator}
     * @param now         now, the mails' created-at
     * @param enqueuedBy  the user that enqueues
     * @param key         the idempotency key scoped to the user, or null
     * @param fingerprint the request's digest when a key is given ({@link RequestFingerprint}), or null
     * @return one mail, or with {@link MailRequest#isPerRecipient()} one per recipient (to, then cc, then
     *         bcc), each addressed To its own recipient only, without Cc or Bcc
     */
    public MailGroup create(ParsedRequest parsed, Instant now, String enqueuedBy, String key, String fingerprint) {
        if (!parsed.request().isPerRecipient()) {
            return new MailGroup(List.of(mail(parsed, now, enqueuedBy, parsed.to(), parsed.cc(), parsed.bcc())),
                    false, key, fingerprint);
        }
        List<NewMail> copies = new ArrayList<>();
        for (Mailbox recipient : parsed.recipients()) {
            copies.add(mail(parsed, now, enqueuedBy, List.of(recipient), List.of(), List.of()));
        }
        return new MailGroup(copies, true, key, fingerprint);
    }

    /**
     * @param envelope    a raw mail's envelope and options that passed {@link MailRequestValidator}
     *                    ({@link RawEnvelope#stored})
     * @param message     its message
     * @param now         now, the mail's created-at and the Date it gets when it has none
     * @param enqueuedBy  the user that enqueues
     * @param key         the idempotency key scoped to the user, or null
     * @param fingerprint the raw mail's digest when a key is given ({@link RequestFingerprint#of(dev.mailqueue.api.RawMail, int)}),
     *                    or null
     * @return the one mail: its Message-ID the message's own, or a new one that is added to it; its From name the
     *         first From address's; the message as {@link RawMessage#stored} gives it
     */
    public MailGroup createRaw(ParsedRequest parsed, RawMessage message, Instant now, String enqueuedBy, String key,
                               String fingerprint) {
        MailRequest envelope = parsed.request();
        Mailbox from = parsed.from();
        String messageId = message.messageId().orElseGet(() -> messageIds.create(from.address()));
        Instant notBefore = envelope.getNotBefore();
        NewMail mail = new NewMail(messageId,
                envelope.getPriority() == null ? MailLimits.PRIORITY_DEFAULT : envelope.getPriority(),
                now, notBefore == null || notBefore.isBefore(now) ? now : notBefore, lifetime.attempts(),
                lifetime.expiry(envelope.getExpiresAt(), now), from.address(), blankToNull(message.from().get(0).getPersonal()),
                null, addresses(parsed.to()), addresses(parsed.cc()), addresses(parsed.bcc()), message.subject(),
                null, null, accounts.route(envelope.getAccount(), from.address()).name(), enqueuedBy, List.of(),
                List.of(), envelope.getUnsubscribeList(), AddressNames.NONE, blankToNull(envelope.getReference()),
                envelope.getCampaign(), tags(envelope.getTags()),
                new NewMail.Raw(message.stored(messageId, now), message.utf8Headers()));
        return new MailGroup(List.of(mail), false, key, fingerprint);
    }

    /**
     * Addresses are stored bare, with the domain as A-labels ({@link Mailbox#address()}); the From name
     * is {@code fromName} or else the name given in {@code from}; the other names go to {@link AddressNames}.
     */
    private NewMail mail(ParsedRequest parsed, Instant now, String enqueuedBy, List<Mailbox> to, List<Mailbox> cc,
                         List<Mailbox> bcc) {
        MailRequest request = parsed.request();
        Mailbox from = parsed.from();
        Instant notBefore = request.getNotBefore();
        Mailbox replyTo = parsed.replyTo();
        List<String> toAddresses = addresses(to);
        List<String> ccAddresses = addresses(cc);
        List<String> bccAddresses = addresses(bcc);
        AddressNames names = AddressNames.of(replyTo == null ? null : replyTo.name(), names(to), names(cc), names(bcc));
        return new NewMail(messageIds.create(from.address()),
                request.getPriority() == null ? MailLimits.PRIORITY_DEFAULT : request.getPriority(),
                now, notBefore == null || notBefore.isBefore(now) ? now : notBefore, lifetime.attempts(),
                lifetime.expiry(request.getExpiresAt(), now), from.address(), parsed.fromName(),
                replyTo == null ? null : replyTo.address(), toAddresses, ccAddresses, bccAddresses,
                request.getSubject(), request.getText(), request.getHtml(),
                accounts.route(request.getAccount(), from.address()).name(), enqueuedBy,
                attachments(request.getAttachments()), headers(request),
                request.getUnsubscribeList(), names, blankToNull(request.getReference()), request.getCampaign(),
                tags(request.getTags()));
    }

    private static List<String> addresses(List<Mailbox> mailboxes) {
        return mailboxes.stream().map(Mailbox::address).toList();
    }

    private static List<String> names(List<Mailbox> mailboxes) {
        return mailboxes.stream().map(Mailbox::name).collect(ArrayList::new, List::add, List::addAll);
    }

    /** @return the tags without repeats, in their first order */
    static List<String> tags(List<String> tags) {
        return tags == null ? List.of() : tags.stream().distinct().toList();
    }

    private static List<NewMail.Attachment> attachments(List<Attachment> attachments) {
        List<NewMail.Attachment> result = new ArrayList<>();
        if (attachments != null) {
            for (Attachment a : attachments) {
                result.add(new NewMail.Attachment(a.getFilename().strip(),
                        AttachmentPolicy.contentTypeOrDefault(a.getContentType()), a.getContent()));
            }
        }
        return result;
    }

    /**
     * @return the caller's header fields. The one-click unsubscribe fields of a mail of a list are not among
     *         them: they are written when the mail is sent, with a link that expires, and never stored where
     *         the sender could read them back
     */
    private static List<NewMail.Header> headers(MailRequest request) {
        List<NewMail.Header> result = new ArrayList<>();
        if (request.getHeaders() != null) {
            request.getHeaders().forEach((name, value) -> result.add(new NewMail.Header(name, value)));
        }
        return result;
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }
}
