package dev.mailqueue.queue.control;

import dev.mailqueue.queue.entity.RecipientStatus;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A mail a claimer holds under its lease, as the claim read it: what the composer needs, the recipients
 * an earlier attempt settled, and its parts. The bodies of a large mail are left out of the claim and
 * read when it is composed ({@link ClaimStore#body}); attachment content is read while DATA is written
 * ({@link ClaimStore#attachmentContent}), so a claim holds at most {@value #CLAIM_BODY_CHARS}
 * characters of body text a mail and no file content.
 *
 * @param id                the row
 * @param messageId         its Message-ID
 * @param createdAt         when it was enqueued (the Date header)
 * @param attemptsRemaining attempts left before this one, 1 or more
 * @param expiresAt         after this it must not be sent, or null
 * @param from              From address
 * @param fromName          From display name, or null
 * @param replyTo           Reply-To address, or null
 * @param to                To recipients
 * @param cc                Cc recipients
 * @param bcc               Bcc recipients
 * @param subject           subject, or null
 * @param account           the SMTP account it was routed to; null (rows before V5) means the default
 * @param settled           recipients an earlier attempt settled, by lower-case address
 * @param headers           custom header fields, in order
 * @param attachments       attachments without their content, in order
 * @param body              the bodies, or null when they were too large to read with the claim
 * @param names             the display names of Reply-To and the recipients
 * @param unsubscribeList   the list its one recipient may leave by one-click unsubscribe, or null; the
 *                          {@code List-Unsubscribe} fields are written when it is sent, not stored
 */
public record ClaimedMail(long id, String messageId, Instant createdAt, int attemptsRemaining, Instant expiresAt,
                          String from, String fromName, String replyTo, List<String> to, List<String> cc,
                          List<String> bcc, String subject, String account, Map<String, RecipientStatus> settled,
                          List<NewMail.Header> headers, List<AttachmentInfo> attachments, Body body,
                          AddressNames names, String unsubscribeList) {

    /** The longest text or HTML body, in characters, that a claim reads with the mail; longer ones are read when composed. */
    public static final int CLAIM_BODY_CHARS = 65_536;

    /** A mail of no list. */
    public ClaimedMail(long id, String messageId, Instant createdAt, int attemptsRemaining, Instant expiresAt,
                       String from, String fromName, String replyTo, List<String> to, List<String> cc,
                       List<String> bcc, String subject, String account, Map<String, RecipientStatus> settled,
                       List<NewMail.Header> headers, List<AttachmentInfo> attachments, Body body, AddressNames names) {
        this(id, messageId, createdAt, attemptsRemaining, expiresAt, from, fromName, replyTo, to, cc, bcc, subject,
                account, settled, headers, attachments, body, names, null);
    }

    /** @return its one recipient (To, else Cc, else Bcc), as a mail of a list has */
    public String firstRecipient() {
        return !to.isEmpty() ? to.get(0) : !cc.isEmpty() ? cc.get(0) : bcc.get(0);
    }

    /** A mail without names on Reply-To or the recipients. */
    public ClaimedMail(long id, String messageId, Instant createdAt, int attemptsRemaining, Instant expiresAt,
                       String from, String fromName, String replyTo, List<String> to, List<String> cc,
                       List<String> bcc, String subject, String account, Map<String, RecipientStatus> settled,
                       List<NewMail.Header> headers, List<AttachmentInfo> attachments, Body body) {
        this(id, messageId, createdAt, attemptsRemaining, expiresAt, from, fromName, replyTo, to, cc, bcc, subject,
                account, settled, headers, attachments, body, AddressNames.NONE);
    }

    /**
     * A mail's text and HTML bodies, or for a raw mail its message.
     *
     * @param text        the text body, or null
     * @param html        the HTML body, or null
     * @param raw         a raw mail's message as it is sent (header fields, an empty line, the body); null for a
     *                    composed mail
     * @param utf8Headers whether the raw message's header fields hold UTF-8 (RFC 6532): it needs SMTPUTF8
     */
    public record Body(String text, String html, byte[] raw, boolean utf8Headers) {

        /** The bodies of a composed mail. */
        public Body(String text, String html) {
            this(text, html, null, false);
        }
    }

    /**
     * An attachment's description; its bytes stay in the database until they are sent.
     *
     * @param storedWith  the mail whose MAIL_ATTACHMENT rows hold it: the mail itself, or for a copy of a
     *                    per-recipient enqueue the group's first copy (COPY_OF), which holds the files of all
     * @param seqNo       its position in the mail, from 0
     * @param filename    its file name
     * @param contentType its MIME type
     * @param sizeBytes   its size in bytes
     */
    public record AttachmentInfo(long storedWith, int seqNo, String filename, String contentType, long sizeBytes) {
    }
}
