package dev.mailqueue.dispatch.control;

import dev.mailqueue.queue.entity.RecipientStatus;
import dev.mailqueue.queue.control.RecipientResult;
import jakarta.mail.Address;
import jakarta.mail.MessagingException;
import jakarta.mail.SendFailedException;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * Sends one message as a separate SMTP transaction per recipient over one connection, each with its own
 * envelope sender: the per-recipient VERP address ({@code bounces+<mail>.<recipient>-<MAC>@...}), so that a
 * bounce or a complaint names the one recipient whose copy it is about, and a recipient who forges a report can
 * name only themself (Postfix's XVERP splits deliveries the same way). The message's content is the same in
 * each; only MAIL FROM and RCPT TO differ.
 * <p>
 * The claimer's gate is awaited at the end of the first transaction's DATA ({@link GatedMessage}); later
 * transactions of the same mail find it open. How far the sends got decides the outcome:
 * <ul>
 *   <li>a recipient whose transaction the server accepted is SENT; one it refused (RCPT or the whole
 *       transaction) is REFUSED or DEFERRED by its reply ({@link FailureClass}), and the next recipient is tried
 *       while the connection stays up;</li>
 *   <li>when the end of DATA went out and no answer came, that recipient is in doubt: sending stops, and the
 *       mail is in doubt with the recipients sent before recorded as SENT, so a resend leaves them out;</li>
 *   <li>when the connection is lost otherwise, the recipients not yet sent to stay DEFERRED.</li>
 * </ul>
 * Not thread safe; one call per mail.
 */
final class SeparateTransactions {

    /**
     * What the transactions came to.
     *
     * @param recipients  one result per recipient, in order
     * @param lastReply   the reply to the last transaction that got one, or {@link SmtpReply#NONE}
     * @param inDoubt     true when a transaction's end of DATA got no answer
     * @param firstFailed the failure of the first transaction when it failed as a whole before any recipient was
     *                    sent to (a refused MAIL FROM, a dropped connection): the caller treats it as it treats a
     *                    failed single transaction; null otherwise
     */
    record Outcome(List<RecipientResult> recipients, SmtpReply lastReply, boolean inDoubt, MessagingException firstFailed) {

        /** @return true when any recipient is to be tried again */
        boolean anyDeferred() {
            return recipients.stream().anyMatch(r -> r.status() == RecipientStatus.DEFERRED);
        }

        /** @return true when the server accepted the message for any recipient */
        boolean anySent() {
            return recipients.stream().anyMatch(r -> r.status() == RecipientStatus.SENT);
        }
    }

    private SeparateTransactions() {
    }

    /**
     * @param connection      the open relay
     * @param message         the composed, armed message
     * @param envelope        the recipients, 2 or more
     * @param envelopeSender  the envelope sender of the recipient at a position of {@code envelope}
     * @return what became of each recipient
     * @throws SmtpUnreachableException when the connection could not be (re)opened before the first recipient
     *                                  was sent to: the server has nothing of the mail
     * @throws MessagingException       when the first transaction failed because the claimer's gate did not open
     *                                  in time ({@link MarkNotRecordedException} among the causes)
     */
    static Outcome send(Relay connection, GatedMessage message, Address[] envelope,
                        IntFunction<String> envelopeSender) throws MessagingException {
        List<RecipientResult> results = new ArrayList<>();
        SmtpReply last = SmtpReply.NONE;
        for (int i = 0; i < envelope.length; i++) {
            Address recipient = envelope[i];
            message.envelopeSender(envelopeSender.apply(i));
            message.rearm();
            try {
                last = connection.send(message, new Address[]{recipient});
                results.add(new RecipientResult(PartialDelivery.bare(recipient), RecipientStatus.SENT, last.code(),
                        last.text(), last.enhancedStatus()));
            } catch (SmtpUnreachableException e) {
                if (i == 0) {
                    throw e;
                }
                deferRest(results, envelope, i);
                break;
            } catch (MessagingException e) {
                if (i == 0 && MarkNotRecordedException.isCause(e)) {
                    throw e;
                }
                SmtpReply reply = SmtpReply.of(e);
                if (message.dataEnded() && reply.code() == null) {
                    deferRest(results, envelope, i);
                    return new Outcome(results, reply, true, null);
                }
                SmtpReply own = e instanceof SendFailedException ? SmtpReply.forRecipient(e, recipient) : reply;
                if (own.code() == null) {
                    own = reply;
                }
                if (i == 0 && own.code() == null) { // nothing reached the server: as a failed single send
                    return new Outcome(List.of(), reply, false, e);
                }
                last = own.code() != null ? own : last;
                RecipientStatus status = FailureClass.of(own) == FailureClass.PERMANENT
                        ? RecipientStatus.REFUSED : RecipientStatus.DEFERRED;
                results.add(new RecipientResult(PartialDelivery.bare(recipient), status, own.code(), own.text(),
                        own.enhancedStatus()));
                if (!connection.isOpen()) {
                    deferRest(results, envelope, i + 1);
                    break;
                }
            }
        }
        return new Outcome(results, last, false, null);
    }

    private static void deferRest(List<RecipientResult> results, Address[] envelope, int from) {
        for (int j = from; j < envelope.length; j++) {
            results.add(new RecipientResult(PartialDelivery.bare(envelope[j]), RecipientStatus.DEFERRED, null, null, null));
        }
    }
}
