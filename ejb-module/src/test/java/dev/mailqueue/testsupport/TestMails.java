package dev.mailqueue.testsupport;

import dev.mailqueue.queue.control.AccountFilter;
import dev.mailqueue.queue.control.MailGroup;
import dev.mailqueue.queue.control.NewMail;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Mails as an enqueue hands them to the store: QUEUED, due at creation, 5 attempts, default account
 * {@code mailqueue}; a test changes what it cares about with the withers.
 */
public final class TestMails {

    /** The accounts of the test mails: {@code mailqueue} (their default) and {@code backup}; claim them all. */
    public static final AccountFilter ACCOUNTS = new AccountFilter(List.of("mailqueue", "backup"), true);

    private TestMails() {
    }

    /**
     * @param subject   tells mails apart in assertions
     * @param priority  0..9
     * @param createdAt also its due time
     * @return a new mail to {@code rcpt@example.com}
     */
    public static NewMail mail(String subject, int priority, Instant createdAt) {
        return new NewMail("<" + UUID.randomUUID() + "@example.com>", priority, createdAt, createdAt, 5, null,
                "sender@example.com", null, null, List.of("rcpt@example.com"), List.of(), List.of(), subject,
                "text of " + subject, null, "mailqueue", "tester", List.of(), List.of());
    }

    /** @return the mail due from {@code notBefore} */
    public static NewMail due(NewMail m, Instant notBefore) {
        return new NewMail(m.messageId(), m.priority(), m.createdAt(), notBefore, m.attempts(), m.expiresAt(), m.from(),
                m.fromName(), m.replyTo(), m.to(), m.cc(), m.bcc(), m.subject(), m.text(), m.html(), m.account(),
                m.enqueuedBy(), m.attachments(), m.headers());
    }

    /** @return the mail with these recipients */
    public static NewMail to(NewMail m, List<String> to, List<String> cc, List<String> bcc) {
        return new NewMail(m.messageId(), m.priority(), m.createdAt(), m.notBefore(), m.attempts(), m.expiresAt(), m.from(),
                m.fromName(), m.replyTo(), to, cc, bcc, m.subject(), m.text(), m.html(), m.account(),
                m.enqueuedBy(), m.attachments(), m.headers());
    }

    /** @return the mail as one of a list, for one-click unsubscribe */
    public static NewMail inList(NewMail m, String list) {
        return new NewMail(m.messageId(), m.priority(), m.createdAt(), m.notBefore(), m.attempts(), m.expiresAt(), m.from(),
                m.fromName(), m.replyTo(), m.to(), m.cc(), m.bcc(), m.subject(), m.text(), m.html(), m.account(),
                m.enqueuedBy(), m.attachments(), m.headers(), list);
    }

    /** @return the mail of a campaign, with a reference and tags */
    public static NewMail inCampaign(NewMail m, String campaign, String reference, List<String> tags) {
        return new NewMail(m.messageId(), m.priority(), m.createdAt(), m.notBefore(), m.attempts(), m.expiresAt(), m.from(),
                m.fromName(), m.replyTo(), m.to(), m.cc(), m.bcc(), m.subject(), m.text(), m.html(), m.account(),
                m.enqueuedBy(), m.attachments(), m.headers(), m.unsubscribeList(), m.names(), reference, campaign, tags);
    }

    /** @return the mail with this many attempts and this expiry */
    public static NewMail attempts(NewMail m, int attempts, Instant expiresAt) {
        return new NewMail(m.messageId(), m.priority(), m.createdAt(), m.notBefore(), attempts, expiresAt, m.from(),
                m.fromName(), m.replyTo(), m.to(), m.cc(), m.bcc(), m.subject(), m.text(), m.html(), m.account(),
                m.enqueuedBy(), m.attachments(), m.headers());
    }

    /** @return the mail routed to another account */
    public static NewMail account(NewMail m, String account) {
        return new NewMail(m.messageId(), m.priority(), m.createdAt(), m.notBefore(), m.attempts(), m.expiresAt(), m.from(),
                m.fromName(), m.replyTo(), m.to(), m.cc(), m.bcc(), m.subject(), m.text(), m.html(), account,
                m.enqueuedBy(), m.attachments(), m.headers());
    }

    /** @return the mail with bodies and parts */
    public static NewMail content(NewMail m, String text, String html, List<NewMail.Attachment> attachments,
                                  List<NewMail.Header> headers) {
        return new NewMail(m.messageId(), m.priority(), m.createdAt(), m.notBefore(), m.attempts(), m.expiresAt(), m.from(),
                m.fromName(), m.replyTo(), m.to(), m.cc(), m.bcc(), m.subject(), text, html, m.account(),
                m.enqueuedBy(), attachments, headers);
    }

    /** @return one group per mail, no key, no copies */
    public static List<MailGroup> groups(NewMail... mails) {
        List<MailGroup> groups = new ArrayList<>();
        for (NewMail mail : mails) {
            groups.add(new MailGroup(List.of(mail), false, null, null));
        }
        return groups;
    }
}
