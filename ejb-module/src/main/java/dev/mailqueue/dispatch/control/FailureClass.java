package dev.mailqueue.dispatch.control;

/**
 * Whether a failed delivery (or one refused recipient) is worth trying again. RFC 5321 §4.2.1: a
 * 4yz reply is a transient negative completion (try again later), a 5yz reply a permanent one. Where
 * the server gave an RFC 3463 enhanced status code, its class decides instead (§3.1: class 4 is a
 * persistent transient failure, class 5 a permanent one), because it is the more specific of the two:
 * servers answer a full mailbox with {@code 552 4.2.2} (RFC 3463 §3.3: mailbox full, "a persistent
 * transient failure"), which a 5yz rule alone would wrongly give up on. No reply at all (connection
 * refused or reset, timeout) is transient: the server may be back later.
 */
public enum FailureClass {
    /** Try again later: 4yz, class-4 enhanced status, or no reply. */
    TRANSIENT,
    /** Never try again: 5yz or class-5 enhanced status, or a message that cannot be composed. */
    PERMANENT;

    /**
     * @param reply the server's reply to the failed command, {@link SmtpReply#NONE} when none came
     * @return how to treat the failure
     */
    public static FailureClass of(SmtpReply reply) {
        String enhanced = reply.enhancedStatus();
        if (enhanced != null) {
            return enhanced.charAt(0) == '5' ? PERMANENT : TRANSIENT;
        }
        Integer code = reply.code();
        return code != null && code >= 500 && code < 600 ? PERMANENT : TRANSIENT;
    }
}
