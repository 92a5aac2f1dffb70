package dev.mailqueue.dispatch.control;

import dev.mailqueue.queue.entity.RecipientStatus;
import dev.mailqueue.queue.control.RecipientResult;
import dev.mailqueue.queue.control.Verdict;
import jakarta.mail.Address;
import jakarta.mail.SendFailedException;
import jakarta.mail.internet.InternetAddress;

import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;

/**
 * Reads a send that the server answered differently per recipient: some RCPT TO accepted, others
 * refused. Jakarta Mail reports it as a {@link SendFailedException} listing the addresses sent to, the
 * valid ones not sent to, and the invalid ones, each with its own RCPT reply down the next-exception
 * chain. With {@code mail.smtp.sendpartial=true} on the mail session (as liberty/server.xml sets it) the
 * accepted recipients got the message; without it none did, and all of them stay open.
 *
 * <p>Each refused recipient is classified on its own reply ({@link FailureClass}): refused for good
 * (e.g. {@code 550 5.1.1}) is settled and never tried again; refused for now (e.g. {@code 450 4.2.1})
 * stays open with the valid recipients not sent to. The mail is tried again while any recipient is
 * open; once none is, it is SENT if any recipient ever accepted it, else FAILED.
 */
final class PartialDelivery {

    /**
     * How a mail's recipients came out of one attempt.
     *
     * @param verdict    what that makes of the mail
     * @param error      the refusals, for the mail's last error; null when there were none
     * @param recipients one result per recipient of the attempt
     */
    record Split(Verdict verdict, String error, List<RecipientResult> recipients) {
    }

    private PartialDelivery() {
    }

    /**
     * @param failure       the failure, listing recipients
     * @param anyAcceptedBefore true when an earlier attempt had some recipient accept the mail
     * @return the split, or null when the failure lists no recipient as sent or invalid (the whole
     *         transaction failed: MAIL FROM, DATA or the connection), which is classified for the mail
     *         as a whole
     */
    static Split of(SendFailedException failure, boolean anyAcceptedBefore) {
        Address[] sent = orEmpty(failure.getValidSentAddresses());
        Address[] invalid = orEmpty(failure.getInvalidAddresses());
        Address[] unsent = orEmpty(failure.getValidUnsentAddresses());
        if (sent.length == 0 && invalid.length == 0) {
            return null;
        }
        List<RecipientResult> recipients = new ArrayList<>();
        StringJoiner refusals = new StringJoiner("; ");
        for (Address a : sent) {
            recipients.add(new RecipientResult(bare(a), RecipientStatus.SENT, null, null, null));
        }
        for (Address a : invalid) {
            SmtpReply reply = SmtpReply.forRecipient(failure, a);
            RecipientStatus status = FailureClass.of(reply) == FailureClass.PERMANENT
                    ? RecipientStatus.REFUSED : RecipientStatus.DEFERRED;
            recipients.add(new RecipientResult(bare(a), status, reply.code(), reply.text(), reply.enhancedStatus()));
            refusals.add(bare(a) + " " + (status == RecipientStatus.REFUSED ? "refused" : "deferred") + ": "
                    + (reply.text() != null ? reply.text() : "no reply"));
        }
        for (Address a : unsent) {
            recipients.add(new RecipientResult(bare(a), RecipientStatus.DEFERRED, null, null, null));
        }
        if (unsent.length > 0) {
            refusals.add(unsent.length + " accepted recipient(s) not sent to, tried again");
        }
        boolean open = recipients.stream().anyMatch(r -> r.status() == RecipientStatus.DEFERRED);
        boolean accepted = anyAcceptedBefore || sent.length > 0;
        Verdict verdict = open ? Verdict.TRANSIENT : accepted ? Verdict.SENT : Verdict.PERMANENT;
        return new Split(verdict, refusals.toString(), recipients);
    }

    /**
     * @param recipients    the recipients the server accepted, all of this attempt's
     * @param reply         the reply to the end of DATA
     * @param settledBefore true when earlier attempts settled some recipients (then each recipient of this
     *                      attempt gets a row, so the recipient table stays complete)
     * @param refusedBefore recipients earlier attempts refused for good, to be named in the last error
     * @return the split of a fully accepted send
     */
    static Split accepted(Address[] recipients, SmtpReply reply, boolean settledBefore, List<String> refusedBefore) {
        List<RecipientResult> results = new ArrayList<>();
        if (settledBefore) {
            for (Address a : recipients) {
                results.add(new RecipientResult(bare(a), RecipientStatus.SENT, reply.code(), reply.text(),
                        reply.enhancedStatus()));
            }
        }
        String error = refusedBefore.isEmpty() ? null
                : "sent; refused for good by an earlier attempt: " + String.join(", ", refusedBefore);
        return new Split(Verdict.SENT, error, results);
    }

    private static Address[] orEmpty(Address[] addresses) {
        return addresses == null ? new Address[0] : addresses;
    }

    static String bare(Address address) {
        return address instanceof InternetAddress ia ? ia.getAddress() : address.toString();
    }
}
