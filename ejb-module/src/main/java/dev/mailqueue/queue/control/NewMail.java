package dev.mailqueue.queue.control;

import java.time.Instant;
import java.util.List;

/**
 * A mail about to be queued, as {@link EnqueueStore#enqueue} stores it: everything but its id, which the
 * store assigns. Addresses are bare ({@code local@domain}) and already validated and de-duplicated.
 *
 * @param messageId   the RFC 5322 Message-ID with angle brackets, at most 255 characters
 * @param priority    0 to 9, higher first
 * @param createdAt   when it was enqueued
 * @param notBefore   when it is due, not before {@code createdAt}
 * @param attempts    attempts it is queued with, 1 or more
 * @param expiresAt   after this it is EXPIRED instead of sent; null for no limit
 * @param from        the From address
 * @param fromName    the From display name, or null
 * @param replyTo     the Reply-To address, or null
 * @param to          To recipients
 * @param cc          Cc recipients
 * @param bcc         Bcc recipients (envelope only)
 * @param subject     the subject, or null
 * @param text        the text body, or null
 * @param html        the HTML body, or null
 * @param account     the SMTP account it is routed to
 * @param enqueuedBy  the user that enqueued it
 * @param attachments files, in order
 * @param headers     custom header fields, in order (with one-click unsubscribe, its two fields last)
 * @param unsubscribeList the list the mail belongs to for one-click unsubscribe, or null: a recipient on the
 *                    suppression list for this list is suppressed as one on it for all mail
 * @param names       the display names of Reply-To and the recipients ({@link AddressNames#NONE} for none);
 *                    the From name is {@code fromName}
 * @param reference   the caller's own reference, at most 255 characters, or null
 * @param campaign    the campaign, or null
 * @param tags        its tags, at most 10, none holding a comma
 * @param raw         for a mail handed over as a finished message (raw MIME), that message; null for a
 *                    composed mail
 */
public record NewMail(String messageId, int priority, Instant createdAt, Instant notBefore, int attempts,
                      Instant expiresAt, String from, String fromName, String replyTo, List<String> to,
                      List<String> cc, List<String> bcc, String subject, String text, String html, String account,
                      String enqueuedBy, List<Attachment> attachments, List<Header> headers,
                      String unsubscribeList, AddressNames names, String reference, String campaign,
                      List<String> tags, Raw raw) {

    /** Copies the tags; no names is {@link AddressNames#NONE}. */
    public NewMail {
        tags = tags == null ? List.of() : List.copyOf(tags);
        names = names == null ? AddressNames.NONE : names;
    }

    /** A composed mail. */
    public NewMail(String messageId, int priority, Instant createdAt, Instant notBefore, int attempts,
                   Instant expiresAt, String from, String fromName, String replyTo, List<String> to,
                   List<String> cc, List<String> bcc, String subject, String text, String html, String account,
                   String enqueuedBy, List<Attachment> attachments, List<Header> headers,
                   String unsubscribeList, AddressNames names, String reference, String campaign,
                   List<String> tags) {
        this(messageId, priority, createdAt, notBefore, attempts, expiresAt, from, fromName, replyTo, to, cc, bcc,
                subject, text, html, account, enqueuedBy, attachments, headers, unsubscribeList, names, reference,
                campaign, tags, null);
    }

    /** A mail without names on Reply-To or the recipients, of no campaign, without reference or tags. */
    public NewMail(String messageId, int priority, Instant createdAt, Instant notBefore, int attempts,
                   Instant expiresAt, String from, String fromName, String replyTo, List<String> to,
                   List<String> cc, List<String> bcc, String subject, String text, String html, String account,
                   String enqueuedBy, List<Attachment> attachments, List<Header> headers, String unsubscribeList) {
        this(messageId, priority, createdAt, notBefore, attempts, expiresAt, from, fromName, replyTo, to, cc, bcc,
                subject, text, html, account, enqueuedBy, attachments, headers, unsubscribeList, AddressNames.NONE,
                null, null, List.of());
    }

    /** A mail of no list: {@code unsubscribeList} null. */
    public NewMail(String messageId, int priority, Instant createdAt, Instant notBefore, int attempts,
                   Instant expiresAt, String from, String fromName, String replyTo, List<String> to,
                   List<String> cc, List<String> bcc, String subject, String text, String html, String account,
                   String enqueuedBy, List<Attachment> attachments, List<Header> headers) {
        this(messageId, priority, createdAt, notBefore, attempts, expiresAt, from, fromName, replyTo, to, cc, bcc,
                subject, text, html, account, enqueuedBy, attachments, headers, (String) null);
    }

    /**
     * A finished RFC 5322 message, as it is stored and sent.
     *
     * @param content     its bytes: header fields, an empty line, the body
     * @param utf8Headers whether a header field holds UTF-8 (RFC 6532): it is sent only with SMTPUTF8
     */
    public record Raw(byte[] content, boolean utf8Headers) {
    }

    /**
     * A file of a mail.
     *
     * @param filename    its name, 1 to 255 characters
     * @param contentType its MIME type, e.g. {@code application/pdf}
     * @param content     its bytes
     */
    public record Attachment(String filename, String contentType, byte[] content) {
    }

    /**
     * A custom header field of a mail.
     *
     * @param name  an RFC 5322 field name, at most 76 characters
     * @param value the unencoded value, at most 998 characters
     */
    public record Header(String name, String value) {
    }
}
