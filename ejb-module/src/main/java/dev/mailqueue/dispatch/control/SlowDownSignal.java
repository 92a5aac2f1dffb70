package dev.mailqueue.dispatch.control;

import java.util.regex.Pattern;

/**
 * Recognises an SMTP server's request to send less: reply code 421 (RFC 5321 §3.8, "service not
 * available, closing transmission channel", which providers send when a client sends too fast) or
 * an RFC 3463 enhanced status code of class 4 and subject 7 (4.7.x: security or policy status,
 * e.g. Gmail's and Microsoft 365's "4.7.0 / 4.7.28 ... rate limited").
 */
public final class SlowDownSignal {

    /** A 4yz reply whose text starts with enhanced status 4.7.x (RFC 3463 §2). */
    private static final Pattern POLICY_DEFERRAL = Pattern.compile("^(?:4\\d\\d[ -])?\\s*4\\.7\\.\\d{1,3}\\b.*",
            Pattern.DOTALL);

    private SlowDownSignal() {
    }

    /**
     * @param reply the server's reply to a command of the send, or {@link SmtpReply#NONE}
     * @return true for 421, and for a 4yz reply whose text starts with 4.7.x (the reply code itself
     *         may lead the text, as Angus Mail's messages have it)
     */
    public static boolean isSlowDown(SmtpReply reply) {
        if (reply == null || reply.code() == null) {
            return false;
        }
        if (reply.code() == 421) {
            return true;
        }
        return reply.code() / 100 == 4 && reply.text() != null && POLICY_DEFERRAL.matcher(reply.text().strip()).matches();
    }
}
