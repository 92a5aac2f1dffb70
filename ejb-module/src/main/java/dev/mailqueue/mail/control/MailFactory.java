package dev.mailqueue.mail.control;

import dev.mailqueue.account.control.Accounts;
import dev.mailqueue.address.control.Mailbox;
import dev.mailqueue.address.control.MailboxParser;
import dev.mailqueue.api.Attachment;
import dev.mailqueue.api.MailLimits;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.queue.control.AddressNames;
import dev.mailqueue.queue.control.MailGroup;
import dev.mailqueue.queue.control.NewMail;
import dev.mailqueue.settings.control.QueueSettings;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Turns a validated {@link MailRequest} into the mails to queue: its Message-ID, default priority, due
 * time, {@code mailqueue.delivery.max-attempts} attempts, and its expiry: the earlier of the request's
 * expiresAt and {@code mailqueue.delivery.max-lifetime.ms} after now (0 for no limit), with its
 * attachments and custom header fields, and the SMTP account it is routed to ({@link Accounts#route}).
 *
 * <p>Recipients are de-duplicated across To, Cc and Bcc, the first occurrence kept (To before Cc before
 * Bcc), comparing whole addresses without regard to case. RFC 5321 §2.4 lets a server treat local parts
 * as case-sensitive, but every large mailbox provider ignores case, and a mail sent twice to the same
 * mailbox is the worse outcome; a recipient is also never sent the mail twice because it was named
 * twice. An address that appears only in a later list in another case is dropped from that list.
 */
@ApplicationScoped
public class MailFactory {

    @Inject
    MessageIdFactory messageIds;

    @Inject
    Accounts accounts;

    @Inject
    QueueSettings settings;

    /**
     * @param request     a request that passed {@link MailRequestValidator}
     * @param now         now, the mails' created-at
     * @param enqueuedBy  the user that enqueues
     * @param key         the idempotency key scoped to the user, or null
     * @param fingerprint the request's digest when a key is given ({@link RequestFingerprint}), or null
     * @return one mail, or with {@link MailRequest#isPerRecipient()} one per recipient (to, then cc, then
     *         bcc), each addressed To its own recipient only, without Cc or Bcc
     */
    public MailGroup create(MailRequest request, Instant now, String enqueuedBy, String key, String fingerprint) {
        List<List<Mailbox>> lists = distinct(request.getTo(), request.getCc(), request.getBcc());
        Mailbox from = MailboxParser.parseValid(request.getFrom());
        if (!request.isPerRecipient()) {
            return new MailGroup(List.of(mail(request, now, enqueuedBy, from, lists.get(0), lists.get(1), lists.get(2))),
                    false, key, fingerprint);
        }
        List<NewMail> copies = new ArrayList<>();
        for (List<Mailbox> kind : lists) {
            for (Mailbox recipient : kind) {
                copies.add(mail(request, now, enqueuedBy, from, List.of(recipient), List.of(), List.of()));
            }
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
    public MailGroup createRaw(MailRequest envelope, RawMessage message, Instant now, String enqueuedBy, String key,
                               String fingerprint) {
        List<List<Mailbox>> lists = distinct(envelope.getTo(), envelope.getCc(), envelope.getBcc());
        Mailbox from = MailboxParser.parseValid(envelope.getFrom());
        String messageId = message.messageId().orElseGet(() -> messageIds.create(from.address()));
        Instant notBefore = envelope.getNotBefore();
        NewMail mail = new NewMail(messageId,
                envelope.getPriority() == null ? MailLimits.PRIORITY_DEFAULT : envelope.getPriority(),
                now, notBefore == null || notBefore.isBefore(now) ? now : notBefore, attempts(),
                expiry(envelope.getExpiresAt(), now), from.address(), blankToNull(message.from().get(0).getPersonal()),
                null, addresses(lists.get(0)), addresses(lists.get(1)), addresses(lists.get(2)), message.subject(),
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
    private NewMail mail(MailRequest request, Instant now, String enqueuedBy, Mailbox from, List<Mailbox> to,
                         List<Mailbox> cc, List<Mailbox> bcc) {
        Instant notBefore = request.getNotBefore();
        String fromName = blankToNull(request.getFromName()) != null ? request.getFromName() : from.name();
        Mailbox replyTo = blankToNull(request.getReplyTo()) == null ? null : MailboxParser.parseValid(request.getReplyTo());
        List<String> toAddresses = addresses(to);
        List<String> ccAddresses = addresses(cc);
        List<String> bccAddresses = addresses(bcc);
        AddressNames names = AddressNames.of(replyTo == null ? null : replyTo.name(), names(to), names(cc), names(bcc));
        return new NewMail(messageIds.create(from.address()),
                request.getPriority() == null ? MailLimits.PRIORITY_DEFAULT : request.getPriority(),
                now, notBefore == null || notBefore.isBefore(now) ? now : notBefore, attempts(),
                expiry(request.getExpiresAt(), now), from.address(), fromName,
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

    /** @return the attempts a mail is queued (or requeued) with: {@code mailqueue.delivery.max-attempts} */
    public int attempts() {
        return settings.maxAttempts();
    }

    /**
     * @param requested the caller's expiry, or null for none
     * @param now       now
     * @return the earlier of the caller's expiry and now plus the queue's maximum lifetime (if set), or
     *         null when there is neither
     */
    public Instant expiry(Instant requested, Instant now) {
        long lifetime = settings.maxLifetimeMillis();
        Instant limit = lifetime > 0 ? now.plusMillis(lifetime) : null;
        if (requested == null || limit != null && limit.isBefore(requested)) {
            return limit;
        }
        return requested;
    }

    /**
     * Parses each address once (the request passed validation, so each is a mailbox).
     *
     * @return the three lists without repeats, an address compared without case and with its domain as
     *         A-labels, whatever its name: an address keeps its first place (To, then Cc, then Bcc) and the
     *         name it was first given with
     * @throws IllegalArgumentException when an address is no mailbox after all (the request was not validated)
     */
    static List<List<Mailbox>> distinct(List<String> to, List<String> cc, List<String> bcc) {
        Set<String> seen = new HashSet<>();
        List<List<Mailbox>> result = new ArrayList<>(3);
        for (List<String> list : List.of(orEmpty(to), orEmpty(cc), orEmpty(bcc))) {
            List<Mailbox> kept = new ArrayList<>();
            for (String text : list) {
                Mailbox mailbox = MailboxParser.parseValid(text);
                if (seen.add(mailbox.address().toLowerCase(Locale.ROOT))) {
                    kept.add(mailbox);
                }
            }
            result.add(kept);
        }
        return result;
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

    private static List<String> orEmpty(List<String> addresses) {
        return addresses == null ? List.of() : addresses;
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }
}
