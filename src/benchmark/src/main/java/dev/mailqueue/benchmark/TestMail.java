package dev.mailqueue.benchmark;

import jakarta.mail.Message.RecipientType;
import jakarta.mail.MessagingException;
import jakarta.mail.Session;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;

import java.io.UnsupportedEncodingException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Date;

/**
 * The benchmark's mail, the same for the queue and for the raw baseline: one sender with a display
 * name, one recipient, a subject, and a plain-text body of exactly {@value #BODY_BYTES} bytes (16
 * lines of 63 ASCII characters and a line feed, so it goes as 7bit). On the wire, with the headers,
 * a message is about 1.4 KB.
 */
public final class TestMail {

    /** Size of the text body in bytes. */
    public static final int BODY_BYTES = 1024;

    static final String FROM = "bench@mailqueue.test";
    static final String FROM_NAME = "Benchmark";
    static final String BODY = body();

    private TestMail() {
    }

    /**
     * @param tag       first word of the subject, which tells one run's mails from another's
     * @param index     which mail
     * @param notBefore when the mail becomes due, or null for at once
     * @return the JSON of the mail as {@code POST /api/mails} takes it
     */
    static String json(String tag, int index, Instant notBefore) {
        return "{\"from\":\"" + FROM + "\",\"fromName\":\"" + FROM_NAME + "\","
                + "\"to\":[\"" + recipient(index) + "\"],"
                + "\"subject\":\"" + subject(tag, index) + "\","
                + (notBefore == null ? "" : "\"notBefore\":\"" + notBefore + "\",")
                + "\"text\":\"" + BODY.replace("\n", "\\n") + "\"}";
    }

    /** The stored template the templated mails are rendered from ({@link #TEMPLATE_JSON}). */
    static final String TEMPLATE = "bench";

    /**
     * The template {@code bench}: the same subject and 1,024-byte text as {@link #json}, the subject and the first
     * line's words from variables, so a mail rendered from it is as large as a composed one.
     */
    static final String TEMPLATE_JSON = "{\"defaultLocale\":\"en\",\"locales\":{\"en\":{\"subject\":\"${tag} mail ${n?c}\","
            + "\"text\":\"The quick brown ${animal} jumps over the lazy ${other}; 0123456789 abcdefg\\n"
            + BODY.substring(64).replace("\n", "\\n") + "\"}}}";

    /**
     * @param tag       first word of the subject
     * @param index     which mail
     * @param notBefore when the mail becomes due, or null for at once
     * @return the JSON of the mail as a template reference, rendered by the server into the mail {@link #json} gives
     */
    static String templatedJson(String tag, int index, Instant notBefore) {
        return "{\"from\":\"" + FROM + "\",\"fromName\":\"" + FROM_NAME + "\","
                + "\"to\":[\"" + recipient(index) + "\"],"
                + (notBefore == null ? "" : "\"notBefore\":\"" + notBefore + "\",")
                + "\"template\":{\"name\":\"" + TEMPLATE + "\",\"variables\":{\"tag\":\"" + tag + "\",\"n\":" + index
                + ",\"animal\":\"fox\",\"other\":\"dog\"}}}";
    }

    /**
     * @param tag       first word of every subject
     * @param count     mails in the batch
     * @param notBefore when the mails become due, or null for at once
     * @return the JSON array of templated mails {@code 0 .. count-1}
     */
    static byte[] templatedBatchJson(String tag, int count, Instant notBefore) {
        StringBuilder json = new StringBuilder(count * 250).append('[');
        for (int i = 0; i < count; i++) {
            if (i > 0) {
                json.append(',');
            }
            json.append(templatedJson(tag, i, notBefore));
        }
        return json.append(']').toString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * @param tag first word of the subject
     * @return the JSON of one mail, due at once, as {@code POST /api/mails} takes it
     */
    static byte[] singleJson(String tag) {
        return json(tag, 0, null).getBytes(StandardCharsets.UTF_8);
    }

    /**
     * @param tag       first word of every subject
     * @param count     mails in the batch
     * @param notBefore when the mails become due, or null for at once
     * @return the JSON array of mails {@code 0 .. count-1} as {@code POST /api/mails/batch} takes it
     */
    static byte[] batchJson(String tag, int count, Instant notBefore) {
        StringBuilder json = new StringBuilder(count * (BODY_BYTES + 200)).append('[');
        for (int i = 0; i < count; i++) {
            if (i > 0) {
                json.append(',');
            }
            json.append(json(tag, i, notBefore));
        }
        return json.append(']').toString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Composes mail {@code index} as the queue's MimeMessageFactory does for a text-only mail (From with
     * display name, To, Subject and Date, UTF-8 text body), with a Message-ID of Jakarta Mail's making.
     *
     * @param session the session of the raw baseline
     * @param index   which mail
     * @return the message, saved
     * @throws MessagingException when Jakarta Mail cannot build it
     */
    static MimeMessage mime(Session session, int index) throws MessagingException {
        MimeMessage message = new MimeMessage(session);
        try {
            message.setFrom(new InternetAddress(FROM, FROM_NAME, "UTF-8"));
        } catch (UnsupportedEncodingException e) {
            throw new MessagingException("cannot encode the display name", e);
        }
        message.setRecipients(RecipientType.TO, new InternetAddress[]{new InternetAddress(recipient(index), true)});
        message.setSubject(subject("raw", index), "UTF-8");
        message.setSentDate(Date.from(Instant.now()));
        message.setText(BODY, "UTF-8");
        message.saveChanges();
        return message;
    }

    private static String recipient(int index) {
        return "user" + index + "@example.com";
    }

    /** @return the subject of mail {@code index}: {@code "<tag> mail <index>"} */
    static String subject(String tag, int index) {
        return tag + " mail " + index;
    }

    private static String body() {
        String line = "The quick brown fox jumps over the lazy dog; 0123456789 abcdefg"; // 63 + \n = 64 bytes
        if (line.length() != 63) {
            throw new IllegalStateException("line must be 63 characters, is " + line.length());
        }
        return (line + "\n").repeat(BODY_BYTES / 64);
    }
}
