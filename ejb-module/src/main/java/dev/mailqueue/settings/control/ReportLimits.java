package dev.mailqueue.settings.control;

/**
 * What one message of the bounce mailbox may cost the intake, whoever sent it: anyone who received a
 * mail of the queue can write to its bounce address. Each limit is a setting (defaults in
 * {@code META-INF/microprofile-config.properties}); each hit is counted in a metric and logged.
 *
 * @param maxMessageBytes the most bytes of a message read, 16,384 to 67,108,864
 *                        ({@code mailqueue.bounce.max-message-bytes}): a larger message is read only up to
 *                        this many bytes (its size is asked of the mailbox first) and classified from that
 *                        prefix. A report puts its explanation and its {@code message/delivery-status} part
 *                        before the returned message (RFC 3462 §2), so a truncated report still reads;
 *                        Postfix returns at most 50,000 bytes of the message ({@code bounce_size_limit})
 * @param maxParts        the most MIME body parts in the whole message, nested ones included, 3 to 10,000
 *                        ({@code mailqueue.bounce.max-parts}): a message with more is refused before it is
 *                        parsed for its content (UNRECOGNISED)
 * @param maxDepth        the deepest nesting of multiparts and attached messages, 2 to 100
 *                        ({@code mailqueue.bounce.max-depth}); deeper is refused likewise
 * @param maxRecipients   the most per-recipient blocks read from a delivery-status part, 1 to 1,000
 *                        ({@code mailqueue.bounce.max-recipients}); the rest are ignored. A queued mail has at
 *                        most 100 recipients, and a report acts only on recipients of its mail
 */
public record ReportLimits(int maxMessageBytes, int maxParts, int maxDepth, int maxRecipients) {

    /** Limits fit for tests and for the classifier used outside the intake: 1 MiB, 100 parts, depth 8, 100 blocks. */
    public static final ReportLimits DEFAULT = new ReportLimits(1 << 20, 100, 8, 100);

    /**
     * @throws IllegalArgumentException when a value is outside its range (the settings reader names the
     *                                  property before this can happen)
     */
    public ReportLimits {
        check("maxMessageBytes", maxMessageBytes, 16_384, 64 << 20);
        check("maxParts", maxParts, 3, 10_000);
        check("maxDepth", maxDepth, 2, 100);
        check("maxRecipients", maxRecipients, 1, 1_000);
    }

    private static void check(String name, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(name + " must be within [" + min + ", " + max + "], was " + value);
        }
    }
}
