package dev.mailqueue.dispatch.control;

import jakarta.mail.MessagingException;
import jakarta.mail.Transport;

import java.lang.reflect.Method;

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
