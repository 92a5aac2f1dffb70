package dev.mailqueue.bounce.control;

import dev.mailqueue.settings.control.ReportLimits;
import dev.mailqueue.queue.control.BounceReport;

/**
 * One message of the bounce mailbox on its way through the intake step.
 *
 * @param index     its position in the {@link Mailbox}
 * @param raw       its bytes (or their first {@link ReportLimits#maxMessageBytes()}), until classified; null after
 * @param truncated true when the message was larger than the intake reads and {@code raw} is its start
 * @param report    what it says, once classified; null before
 */
public record FetchedReport(int index, byte[] raw, boolean truncated, BounceReport report) {
}
