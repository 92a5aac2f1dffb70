package dev.mailqueue.dispatch.control;

import dev.mailqueue.queue.entity.RecipientStatus;
import dev.mailqueue.queue.control.RecipientResult;
import jakarta.mail.Address;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Decides what of a mail may go through a connection whose server does not offer SMTPUTF8 (RFC 6531), or
 * whose session lacks {@code mail.mime.allowutf8} (then Angus Mail neither asks for SMTPUTF8 nor sends
 * addresses in UTF-8). RFC 6531 §3.2: a message that needs SMTPUTF8 must not be sent to such a server;
 * here each recipient whose local part is not ASCII is refused for good, with {@link #REASON}, and the
 * others are sent to. A mail whose author (From) needs SMTPUTF8 cannot go at all ({@link #SENDER_REASON}).
 */
final class SmtpUtf8Gate {

    /** The enhanced status code of RFC 6531 §3.6 for a non-ASCII address that cannot be used. */
    static final String ENHANCED_STATUS = "5.6.7";

    /** Why such a recipient is refused. */
    static final String REASON = "not sent: this address has a non-ASCII local part, which needs SMTPUTF8 (RFC 6531 3.2),"
            + " and the account cannot use it: its server does not offer SMTPUTF8, or its mail session lacks"
            + " mail.mime.allowutf8=true";

    /** Why a mail from such a sender is refused. */
    static final String SENDER_REASON = "not sent: the sender's address has a non-ASCII local part, which needs"
            + " SMTPUTF8 (RFC 6531 3.2), and the account cannot use it: its server does not offer SMTPUTF8, or its"
            + " mail session lacks mail.mime.allowutf8=true";

    /** Why a raw mail whose header fields hold UTF-8 is refused. */
    static final String HEADER_REASON = "not sent: the message's header fields hold UTF-8 (RFC 6532), which needs"
            + " SMTPUTF8 (RFC 6531 3.2), and the account cannot use it: its server does not offer SMTPUTF8, or its"
            + " mail session lacks mail.mime.allowutf8=true";

    /**
     * The recipients of one send over a server without SMTPUTF8.
     *
     * @param sendable the recipients with ASCII local parts, in order
     * @param refused  one REFUSED result per other recipient
     */
    record Split(Address[] sendable, List<RecipientResult> refused) {
    }

    private SmtpUtf8Gate() {
    }

    /**
     * @param recipients the envelope recipients still open
     * @return those that can be sent to without SMTPUTF8, and the others refused
     */
    static Split split(Address[] recipients) {
        List<Address> sendable = new ArrayList<>();
        List<RecipientResult> refused = new ArrayList<>();
        for (Address recipient : recipients) {
            String address = PartialDelivery.bare(recipient);
            if (isAscii(localPart(address))) {
                sendable.add(recipient);
            } else {
                refused.add(new RecipientResult(address, RecipientStatus.REFUSED, null, REASON, ENHANCED_STATUS));
            }
        }
        return new Split(sendable.toArray(Address[]::new), refused);
    }

    /**
     * @param address a bare address, or null
     * @return true when its local part is not ASCII: it cannot be sent without SMTPUTF8
     */
    static boolean needsSmtpUtf8(String address) {
        return address != null && !isAscii(localPart(address));
    }

    /**
     * @param split   what the send's replies made of the recipients sent to
     * @param refused the recipients refused here before the send
     * @return the split with those refused added to its results and its error
     */
    static PartialDelivery.Split with(PartialDelivery.Split split, List<RecipientResult> refused) {
        if (refused.isEmpty()) {
            return split;
        }
        List<RecipientResult> recipients = new ArrayList<>(split.recipients());
        recipients.addAll(refused);
        String refusals = refused.stream().map(RecipientResult::address).reduce((a, b) -> a + ", " + b).orElse("")
                + " refused: " + REASON;
        return new PartialDelivery.Split(split.verdict(), split.error() == null ? refusals : split.error() + "; " + refusals,
                recipients);
    }

    /** @return the address's envelope form's local part */
    private static String localPart(String address) {
        int at = address.lastIndexOf('@');
        return at < 0 ? address : address.substring(0, at);
    }

    static boolean isAscii(String text) {
        return StandardCharsets.US_ASCII.newEncoder().canEncode(text);
    }

}
