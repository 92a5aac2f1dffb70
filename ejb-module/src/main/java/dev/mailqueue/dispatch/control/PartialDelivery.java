package dev.mailqueue.dispatch.control;

import dev.mailqueue.dispatch.control.DeliveryOutcome.Verdict;
import dev.mailqueue.mail.entity.RecipientStatus;
import jakarta.mail.Address;
import jakarta.mail.SendFailedException;
import jakarta.mail.internet.InternetAddress;

import java.time.LocalDateTime;
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

    private PartialDelivery() {
    }

    /**
     * @param mail     what was sent
     * @param started  UTC, when the attempt began
     * @param finished UTC, when it ended
     * @param failure  the failure, listing recipients
     * @param account  the SMTP account that tried
     * @return the outcome with one {@link RecipientOutcome} per recipient of this attempt, or null when
     *         the failure lists no recipient as sent or invalid (the whole transaction failed: MAIL FROM,
     *         DATA or the connection), which is classified for the mail as a whole
     */
    static DeliveryOutcome of(OutgoingMail mail, LocalDateTime started, LocalDateTime finished,
                              SendFailedException failure, String account) {
        Address[] sent = orEmpty(failure.getValidSentAddresses());
        Address[] invalid = orEmpty(failure.getInvalidAddresses());
        Address[] unsent = orEmpty(failure.getValidUnsentAddresses());
        if (sent.length == 0 && invalid.length == 0) {
            return null;
        }
        List<RecipientOutcome> recipients = new ArrayList<>();
        StringJoiner refusals = new StringJoiner("; ");
        for (Address a : sent) {
            recipients.add(new RecipientOutcome(bare(a), RecipientStatus.SENT, SmtpReply.NONE));
        }
        for (Address a : invalid) {
            SmtpReply reply = SmtpReply.forRecipient(failure, a);
            RecipientStatus status = FailureClass.of(reply) == FailureClass.PERMANENT
                    ? RecipientStatus.REFUSED : RecipientStatus.DEFERRED;
            recipients.add(new RecipientOutcome(bare(a), status, reply));
            refusals.add(bare(a) + " " + (status == RecipientStatus.REFUSED ? "refused" : "deferred") + ": "
                    + (reply.text() != null ? reply.text() : "no reply"));
        }
        for (Address a : unsent) {
            recipients.add(new RecipientOutcome(bare(a), RecipientStatus.DEFERRED, SmtpReply.NONE));
        }
        if (unsent.length > 0) {
            refusals.add(unsent.length + " accepted recipient(s) not sent to, tried again");
        }
        boolean open = recipients.stream().anyMatch(r -> r.status() == RecipientStatus.DEFERRED);
        boolean accepted = mail.anyAccepted() || sent.length > 0;
        Verdict verdict = open ? Verdict.TRANSIENT : accepted ? Verdict.SENT : Verdict.PERMANENT;
        return new DeliveryOutcome(mail.mailId(), mail.attemptsRemaining(), mail.expiresAt(), started, finished,
                verdict, SmtpReply.of(failure), refusals.toString(), recipients, account);
    }

    /**
     * @param mail     what was sent
     * @param started  UTC, when the attempt began
     * @param finished UTC, when it ended
     * @param reply    the reply to the end of DATA
     * @param account  the SMTP account that sent it
     * @return SENT, with every recipient of this attempt SENT when earlier attempts settled some (so the
     *         recipient table stays complete), else without per-recipient detail
     */
    static DeliveryOutcome accepted(OutgoingMail mail, LocalDateTime started, LocalDateTime finished,
                                    SmtpReply reply, String account) {
        List<RecipientOutcome> recipients = new ArrayList<>();
        if (mail.settled()) {
            for (Address a : mail.recipients()) {
                recipients.add(new RecipientOutcome(bare(a), RecipientStatus.SENT, reply));
            }
        }
        String error = mail.refusedEarlier().isEmpty() ? null
                : "sent; refused for good by an earlier attempt: " + String.join(", ", mail.refusedEarlier());
        return new DeliveryOutcome(mail.mailId(), mail.attemptsRemaining(), mail.expiresAt(), started, finished,
                Verdict.SENT, reply, error, recipients, account);
    }

    private static Address[] orEmpty(Address[] addresses) {
        return addresses == null ? new Address[0] : addresses;
    }

    private static String bare(Address address) {
        return address instanceof InternetAddress ia ? ia.getAddress() : address.toString();
    }
}
