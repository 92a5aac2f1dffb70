package dev.mailqueue.mail.control;

import dev.mailqueue.api.Attachment;
import dev.mailqueue.api.MailRequest;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * A digest of everything a mail request asks for (SHA-256, 64 hex digits), stored with the mail its
 * idempotency key queued, so that a repeat of the key with a different request is told apart from a
 * true repeat: the IETF draft "The Idempotency-Key HTTP Header Field" (draft-ietf-httpapi-idempotency-
 * key-header §2.6) answers such a misuse with 422. Each field goes in with its length, so no two
 * different requests share an input; absent and empty values differ.
 */
public final class RequestFingerprint {

    private RequestFingerprint() {
    }

    /**
     * @param request a validated request
     * @return its digest, 64 lower-case hex digits
     */
    public static String of(MailRequest request) {
        MessageDigest digest;
        try {
            digest = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
        text(digest, request.getFrom());
        text(digest, request.getFromName());
        text(digest, request.getReplyTo());
        list(digest, request.getTo());
        list(digest, request.getCc());
        list(digest, request.getBcc());
        text(digest, request.getSubject());
        text(digest, request.getText());
        text(digest, request.getHtml());
        text(digest, request.getPriority() == null ? null : request.getPriority().toString());
        text(digest, request.getNotBefore() == null ? null : request.getNotBefore().toString());
        text(digest, request.getExpiresAt() == null ? null : request.getExpiresAt().toString());
        text(digest, Boolean.toString(request.isPerRecipient()));
        text(digest, request.getAccount());
        List<Attachment> attachments = request.getAttachments() == null ? List.of() : request.getAttachments();
        number(digest, attachments.size());
        for (Attachment a : attachments) {
            text(digest, a.getFilename());
            text(digest, a.getContentType());
            bytes(digest, a.getContent());
        }
        Map<String, String> headers = request.getHeaders() == null ? Map.of() : request.getHeaders();
        number(digest, headers.size());
        headers.forEach((name, value) -> {
            text(digest, name);
            text(digest, value);
        });
        if (request.getUnsubscribeList() != null) { // last and only when set: digests stored before it stay valid
            text(digest, request.getUnsubscribeList());
        }
        // Later fields, each only when set and after its name, so no two of them can be taken for each other.
        named(digest, "reference", request.getReference());
        named(digest, "campaign", request.getCampaign());
        if (request.getTags() != null && !request.getTags().isEmpty()) {
            text(digest, "tags");
            list(digest, request.getTags());
        }
        if (request.getTemplate() != null) { // its variables as Java writes maps and lists: in the caller's order
            named(digest, "template", request.getTemplate().getName());
            named(digest, "locale", request.getTemplate().getLocale());
            named(digest, "variables", String.valueOf(request.getTemplate().getVariables()));
        }
        return HexFormat.of().formatHex(digest.digest());
    }

    /**
     * @param mail a raw mail
     * @param from the offset in its message where the digest begins: after the trace fields that lead it
     *             ({@link RawMessage#traceEnd()}), which each relay on its way writes anew (RFC 5321 §4.4), so that
     *             the same message handed in again through another connection is the same request
     * @return its digest, 64 lower-case hex digits: of the message's bytes from {@code from}, its envelope and
     *         options, marked as raw so that it never equals a composed request's
     */
    public static String of(dev.mailqueue.api.RawMail mail, int from) {
        MessageDigest digest;
        try {
            digest = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
        text(digest, "raw");
        byte[] message = mail.getMessage();
        number(digest, message.length - from);
        digest.update(message, from, message.length - from);
        text(digest, mail.getEnvelopeFrom());
        list(digest, mail.getEnvelopeTo());
        text(digest, mail.getPriority() == null ? null : mail.getPriority().toString());
        text(digest, mail.getNotBefore() == null ? null : mail.getNotBefore().toString());
        text(digest, mail.getExpiresAt() == null ? null : mail.getExpiresAt().toString());
        text(digest, mail.getAccount());
        text(digest, mail.getCampaign());
        text(digest, mail.getReference());
        list(digest, mail.getTags());
        text(digest, mail.getUnsubscribeList());
        return HexFormat.of().formatHex(digest.digest());
    }

    private static void named(MessageDigest digest, String name, String value) {
        if (value != null) {
            text(digest, name);
            text(digest, value);
        }
    }

    private static void list(MessageDigest digest, List<String> values) {
        if (values == null) {
            number(digest, -1);
            return;
        }
        number(digest, values.size());
        values.forEach(v -> text(digest, v));
    }

    private static void text(MessageDigest digest, String value) {
        bytes(digest, value == null ? null : value.getBytes(StandardCharsets.UTF_8));
    }

    private static void bytes(MessageDigest digest, byte[] value) {
        if (value == null) {
            number(digest, -1);
            return;
        }
        number(digest, value.length);
        digest.update(value);
    }

    private static void number(MessageDigest digest, long value) {
        digest.update(ByteBuffer.allocate(Long.BYTES).putLong(value).array());
    }
}
