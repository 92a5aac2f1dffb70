package dev.mailqueue.bounce.control;

/**
 * One message of the bounce mailbox on its way through the intake step.
 *
 * @param index  its position in the {@link Mailbox}
 * @param raw    its bytes, until classified; null after
 * @param report what it says, once classified; null before
 */
public record FetchedReport(int index, byte[] raw, BounceReport report) {
}
