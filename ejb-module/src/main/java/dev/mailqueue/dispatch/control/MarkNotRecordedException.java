package dev.mailqueue.dispatch.control;

import java.io.IOException;

/**
 * The claimer's gate ({@link SendGate}) did not open before the mail's DATA was complete: the outcome of its
 * mail before was not committed in time (the database is slow or away), or its lease was not sure to hold, so
 * the claimer broke the SMTP transaction off before the terminating dot: the server has
 * nothing, and the mail is sent again once the journal writes again. An {@link IOException}, because
 * that is what makes the SMTP transport drop the connection instead of ending DATA.
 */
public class MarkNotRecordedException extends IOException {

    private static final long serialVersionUID = 1L;

    /** @param waitedMillis how long the claimer waited at its gate, ms */
    public MarkNotRecordedException(long waitedMillis) {
        super("the outcome before this mail was not committed (or the lease not held) within " + waitedMillis
                + " ms; DATA broken off before its end");
    }

    /**
     * @param failure what sending threw
     * @return true when a cause is this exception
     */
    static boolean isCause(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() != null ? t.getCause()
                : t instanceof jakarta.mail.MessagingException me ? me.getNextException() : null) {
            if (t instanceof MarkNotRecordedException) {
                return true;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }
}
