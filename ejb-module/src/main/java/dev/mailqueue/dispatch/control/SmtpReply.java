package dev.mailqueue.dispatch.control;

import jakarta.mail.Address;
import jakarta.mail.MessagingException;
import jakarta.mail.Transport;

import java.lang.reflect.Method;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An SMTP reply (RFC 5321 §4.2): a three-digit code and its text. Jakarta Mail's API does not expose
 * replies; the SMTP provider (Angus Mail's {@code SMTPTransport} and its {@code SMTP*FailedException}s)
 * does, through public methods read here by name so that application code needs no provider classes.
 * When the provider offers none, code and text are null.
 *
 * @param code three-digit reply code, or null when none is known
 * @param text the reply line(s) as the server sent them, or null
 */
public record SmtpReply(Integer code, String text) {

    /** No reply: nothing was received, e.g. the connection was refused. */
    public static final SmtpReply NONE = new SmtpReply(null, null);

    /**
     * RFC 3463 §2: class "." subject "." detail, class 2, 4 or 5, subject and detail 1 to 3 digits, right
     * after the reply code (RFC 2034 §4: "the enhanced status code ... is placed at the beginning of the
     * text"), e.g. {@code 550 5.1.1 <bob@example.com>: mailbox unavailable}; some provider messages
     * carry the text without the code in front.
     */
    private static final Pattern ENHANCED = Pattern.compile("^(?:\\d{3}[ -])?\\s*([245]\\.\\d{1,3}\\.\\d{1,3})(?=\\s|$)");

    /**
     * @return the RFC 3463 enhanced status code at the start of the reply text, e.g. {@code "5.1.1"},
     *         or null when the server sent none (servers that do not announce ENHANCEDSTATUSCODES)
     */
    public String enhancedStatus() {
        if (text == null) {
            return null;
        }
        Matcher m = ENHANCED.matcher(text.strip());
        return m.find() ? m.group(1) : null;
    }

    /**
     * @return true when the server says to slow down: reply 421 (RFC 5321 §4.2.3, service closing the
     *         channel, which servers use when a client sends too fast) or an enhanced status of class 4
     *         and subject 7 (RFC 3463 §3.8, security or policy status, e.g. 4.7.0 rate limited)
     */
    public boolean isSlowDown() {
        String enhanced = enhancedStatus();
        return Integer.valueOf(421).equals(code)
                || enhanced != null && enhanced.startsWith("4.7.") && (code == null || code / 100 == 4);
    }

    /**
     * @param transport a connected transport right after a command
     * @return the last reply it received, e.g. {@code 250 OK}
     */
    public static SmtpReply lastOf(Transport transport) {
        Integer code = call(transport, "getLastReturnCode", Integer.class);
        String text = call(transport, "getLastServerResponse", String.class);
        return new SmtpReply(code != null && code > 0 ? code : null, text == null ? null : text.strip());
    }

    /**
     * @param failure what sending threw
     * @return the reply the server refused with, looked up along the cause and next-exception chain;
     *         {@link #NONE} when the failure carries no reply (connection or I/O failure)
     */
    public static SmtpReply of(MessagingException failure) {
        Throwable t = failure;
        for (int depth = 0; t != null && depth < 10; depth++) {
            Integer code = call(t, "getReturnCode", Integer.class);
            if (code != null && code > 0) {
                return new SmtpReply(code, t.getMessage() == null ? null : t.getMessage().strip());
            }
            Throwable next = t instanceof MessagingException me ? me.getNextException() : null;
            t = next != null ? next : t.getCause();
        }
        return NONE;
    }

    /**
     * @param failure   what sending threw, e.g. a {@code SendFailedException} listing invalid addresses
     * @param recipient one of the addresses it lists as invalid
     * @return the server's reply to that recipient's RCPT TO, found along the next-exception chain (one
     *         {@code SMTPAddressFailedException} per refused recipient); {@link #NONE} when none names it
     */
    public static SmtpReply forRecipient(MessagingException failure, Address recipient) {
        Exception t = failure;
        for (int depth = 0; t != null && depth < 1000; depth++) {
            Object address = call(t, "getAddress", Object.class);
            Integer code = call(t, "getReturnCode", Integer.class);
            if (recipient.equals(address) && code != null && code > 0) {
                return new SmtpReply(code, t.getMessage() == null ? null : t.getMessage().strip());
            }
            t = t instanceof MessagingException me ? me.getNextException() : null;
        }
        return NONE;
    }

    private static <T> T call(Object target, String method, Class<T> type) {
        try {
            Method m = target.getClass().getMethod(method);
            Object value = m.invoke(target);
            return type.isInstance(value) ? type.cast(value) : null;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }
}
