package dev.mailqueue.dispatch.control;

import dev.mailqueue.mime.control.HeaderLimits;
import dev.mailqueue.mime.control.HeaderSection;
import dev.mailqueue.mime.control.MalformedHeaderException;
import jakarta.mail.Address;
import jakarta.mail.MessagingException;
import jakarta.mail.Session;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.InternetHeaders;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.List;

/**
 * A raw mail's message as the claimer sends it: the stored message byte for byte. Its header fields are read
 * once (as UTF-8 where they hold it, RFC 6532) so that the transport and the queue can read them and the queue
 * can add the fields it writes at sending ({@code List-Unsubscribe}); the lines that were not changed are
 * written as they came, and the body is never decoded or re-encoded, so a DKIM or S/MIME signature over them
 * still verifies. Jakarta Mail's {@link jakarta.mail.internet.MimeMessage#saveChanges()} is never called on it
 * (it would rewrite MIME-Version, Content-Type and Message-ID).
 *
 * <p>Its envelope is the mail's, not its header fields': MAIL FROM is the stored envelope sender unless the
 * account's VERP replaces it ({@link GatedMessage#envelopeSender(String)}), and the recipients are the stored
 * envelope recipients ({@link #getAllRecipients()}).
 */
final class RawGatedMessage extends GatedMessage {

    private final Address[] sender;
    private final Address[] recipients;
    private final boolean utf8Headers;

    /**
     * @param session     the container's mail session; supplies MIME settings only
     * @param messageId   the mail's Message-ID (already in the message)
     * @param message     the stored message: header fields, an empty line, the body
     * @param sender      the envelope sender, a bare address
     * @param recipients  the envelope recipients, bare addresses
     * @param utf8Headers whether its header fields hold UTF-8
     * @throws MessagingException when the stored header section breaks {@link HeaderSection}'s grammar or passes
     *                            {@link HeaderLimits#CEILING} (a message queued before the queue checked them, e.g.
     *                            with a bare CR that would show one reader a field another does not see)
     */
    RawGatedMessage(Session session, String messageId, byte[] message, String sender, List<String> recipients,
                    boolean utf8Headers) throws MessagingException {
        super(session, messageId);
        int bodyStart;
        try {
            bodyStart = HeaderSection.read(message, HeaderLimits.CEILING).bodyStart();
        } catch (MalformedHeaderException e) {
            throw new MessagingException("the stored header section is not one the queue sends: " + e.getMessage());
        }
        // Jakarta Mail ends a header line at CR, LF or CRLF; the section has no CR but before LF, so it reads the
        // lines HeaderSection read
        headers = new InternetHeaders(new ByteArrayInputStream(message, 0, bodyStart), true);
        content = Arrays.copyOfRange(message, bodyStart, message.length);
        saved = true;
        modified = false;
        this.sender = new Address[]{address(sender)};
        this.recipients = new Address[recipients.size()];
        for (int i = 0; i < this.recipients.length; i++) {
            this.recipients[i] = address(recipients.get(i));
        }
        this.utf8Headers = utf8Headers;
    }

    /** A bare address as stored, without parsing it again (it passed the queue's rules at enqueue). */
    private static InternetAddress address(String bare) {
        InternetAddress address = new InternetAddress();
        address.setAddress(bare);
        return address;
    }

    /** @return the stored envelope recipients, not the header fields' */
    @Override
    public Address[] getAllRecipients() {
        return recipients.clone();
    }

    @Override
    Address[] defaultSender() {
        return sender.clone();
    }

    @Override
    boolean needsSmtpUtf8() {
        return utf8Headers;
    }

    /** Writes the header fields (UTF-8 where they hold it), the empty line, and the body's bytes as stored. */
    @Override
    void writeMessage(OutputStream out, String[] ignoreList) throws IOException, MessagingException {
        writeHeaderLines(out, ignoreList);
        out.write(content);
        out.flush();
    }
}
