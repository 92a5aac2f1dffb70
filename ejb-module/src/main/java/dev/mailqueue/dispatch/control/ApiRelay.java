package dev.mailqueue.dispatch.control;

import jakarta.mail.MessagingException;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Instant;

/**
 * What the relays of HTTP mail APIs ({@link SesRelay}, {@link GraphRelay}) share: they hold no connection of their
 * own (their HTTP client's pool does), so they are never kept in the idle pool; the queue sends them no SMTPUTF8
 * address; and each request carries the whole message, written to memory through the claimer's gate first. Not
 * thread safe: one claimer at a time.
 */
abstract class ApiRelay implements Relay {

    private final String account;
    private Instant lastUsed = Instant.now();

    /** @param account the account's name */
    ApiRelay(String account) {
        this.account = account;
    }

    @Override
    public String account() {
        return account;
    }

    @Override
    public Instant lastUsed() {
        return lastUsed;
    }

    /** Notes that a request was made (answered or not). */
    void used() {
        lastUsed = Instant.now();
    }

    /** @return false: the relay holds no connection of its own, and is not kept in the idle pool */
    @Override
    public boolean isOpen() {
        return false;
    }

    /** @return false: the queue sends these APIs no address with a non-ASCII local part (RFC 6531) */
    @Override
    public boolean offersSmtpUtf8() {
        return false;
    }

    /**
     * @param message    the armed message
     * @param notWritten header fields to leave out, e.g. {@code Bcc}
     * @return the message's bytes, once the claimer's gate opened: nothing leaves before it does
     * @throws MessagingException when it cannot be written, or the gate did not open in time
     *                            ({@link MarkNotRecordedException}: nothing was sent)
     */
    static byte[] bytes(GatedMessage message, String[] notWritten) throws MessagingException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(8192);
        try {
            message.writeTo(out, notWritten);
        } catch (IOException e) {
            throw new MessagingException("cannot write the message", e);
        }
        return out.toByteArray();
    }

    /** Nothing to close: the HTTP client is shared and closed with the application. */
    @Override
    public void close() {
    }
}
