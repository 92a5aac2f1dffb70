package dev.mailqueue.dispatch.control;

/**
 * What the end of a mail's DATA waits for: the final "." goes to the SMTP server only once this opens, so a mail
 * that must not go out (the outcome of the claimer's mail before it is not durable, or the claimer's lease may
 * have run out) is aborted unsent instead.
 */
@FunctionalInterface
interface SendGate {

    /** A gate that is open. */
    SendGate OPEN = millis -> true;

    /**
     * @param millis longest wait, ms
     * @return true when the mail may go out; false when the wait ran out first, or it must not go out at all
     * @throws InterruptedException when the waiting thread is interrupted
     */
    boolean await(long millis) throws InterruptedException;
}
