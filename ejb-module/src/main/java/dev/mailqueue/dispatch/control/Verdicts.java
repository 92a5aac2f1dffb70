package dev.mailqueue.dispatch.control;

import dev.mailqueue.queue.control.AttemptResult;
import dev.mailqueue.queue.control.Change;
import dev.mailqueue.queue.control.ClaimedMail;
import dev.mailqueue.queue.control.Lease;
import dev.mailqueue.queue.control.RecipientResult;
import dev.mailqueue.queue.control.Verdict;
import dev.mailqueue.queue.entity.RecipientStatus;
import jakarta.mail.Address;
import jakarta.mail.MessagingException;
import jakarta.mail.SendFailedException;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Turns what one attempt of a mail came to into the {@link Change} the claimer records: the mail's verdict, the
 * reply, the attempt's error, and a result per recipient where they differ. The rules of the verdict:
 * <ul>
 *   <li>a whole reply decides for every recipient: accepted is SENT; refused is PERMANENT or TRANSIENT by
 *       {@link FailureClass}; the end of DATA sent with no answer is IN_DOUBT;</li>
 *   <li>replies per recipient ({@link PartialDelivery}, {@link SeparateTransactions}), recipients refused for want
 *       of SMTPUTF8 ({@link SmtpUtf8Gate}) and simulated ones ({@link Simulation}) are merged: the mail stays open
 *       while any recipient is deferred, else it is SENT when any recipient ever accepted it, else PERMANENT.</li>
 * </ul>
 * One per claimer; holds no state of a mail.
 */
final class Verdicts {

    private final Lease lease;
    private final String server;

    /**
     * @param lease  the claimer's lease, recorded with each attempt
     * @param server this server's name, recorded with each attempt
     */
    Verdicts(Lease lease, String server) {
        this.lease = lease;
        this.server = server;
    }

    /** @return the claimer's lease */
    Lease lease() {
        return lease;
    }

    /**
     * @param mail    the mail
     * @param started when the attempt began
     * @return an EXPIRED attempt: the mail's expires-at passed before it could be sent
     */
    Change expired(ClaimedMail mail, Instant started) {
        return failed(mail, started, new Unsendable(Verdict.EXPIRED,
                "expired at " + mail.expiresAt() + " before it could be sent", null));
    }

    /**
     * @param mail    the mail
     * @param started when the attempt began
     * @param why     why it ended before anything reached a server
     * @return the attempt, with no reply and no per-recipient results
     */
    Change failed(ClaimedMail mail, Instant started, Unsendable why) {
        return attempt(mail, started, why.verdict(), SmtpReply.NONE, why.getMessage(), List.of(), why.account());
    }

    /**
     * @param mail the mail, handed back unsent with its attempts untouched
     * @param due  when it is due again
     * @param note why, for the mail's last error; null for none
     * @return the change
     */
    Change handedBack(ClaimedMail mail, Instant due, String note) {
        return new Change.HandedBack(mail.id(), lease.claimer(), due, note);
    }

    /** @return the attempt of a mail whose recipients earlier attempts all settled */
    Change settledBefore(ClaimedMail mail, Instant started, RecipientPlan plan) {
        return attempt(mail, started, plan.anyAcceptedBefore() ? Verdict.SENT : Verdict.PERMANENT, SmtpReply.NONE, null,
                List.of(), null);
    }

    /**
     * @return the attempt of a mail none of whose open recipients is sent to a server: the simulated results, with
     *         their reply when they all share one
     */
    Change simulatedOnly(ClaimedMail mail, Instant started, RecipientPlan plan) {
        PartialDelivery.Split split = Simulation.merge(null, plan.simulated(), plan.anyAcceptedBefore());
        RecipientResult first = plan.simulated().get(0);
        SmtpReply reply = plan.simulated().stream().allMatch(r -> r.status() == first.status()
                && Objects.equals(r.replyText(), first.replyText()))
                ? new SmtpReply(first.replyCode(), first.replyText()) : SmtpReply.NONE;
        return attempt(mail, started, split.verdict(), reply, split.error(), split.recipients(), mail.account());
    }

    /** @return the attempt when no recipient could go through the account's relay (none has an ASCII local part) */
    Change noneSendable(Attempt a, RecipientPlan.Envelope envelope, String account) {
        PartialDelivery.Split none = new PartialDelivery.Split(a.plan().anyAcceptedBefore() ? Verdict.SENT : Verdict.PERMANENT,
                null, List.of());
        return split(a, envelope, none, SmtpReply.NONE, account);
    }

    /** @return the attempt of a hand-over the server accepted as a whole with {@code reply} */
    Change accepted(Attempt a, RecipientPlan.Envelope envelope, SmtpReply reply, String account) {
        PartialDelivery.Split split = PartialDelivery.accepted(a.plan().redirected() ? a.plan().real() : envelope.recipients(),
                reply, a.plan().settlesOthers() || !envelope.notSmtpUtf8().isEmpty(), a.plan().refusedBefore());
        return split(a, envelope, split, reply, account);
    }

    /**
     * @param a       the attempt, whose message knows whether its end of DATA went out
     * @param failure what the hand-over threw (not an unreachable relay)
     * @return the attempt of a hand-over that failed in part or as a whole
     */
    Change refused(Attempt a, RecipientPlan.Envelope envelope, MessagingException failure, String account) {
        SmtpReply reply = SmtpReply.of(failure);
        if (a.message().dataEnded() && reply.code() == null) {
            return attempt(a.mail(), a.started(), Verdict.IN_DOUBT, reply, "in doubt: the end of DATA was sent and no answer came ("
                    + FailureText.describe(failure) + ")", List.of(), account);
        }
        if (!a.plan().redirected() && failure instanceof SendFailedException refusedSome) {
            PartialDelivery.Split split = PartialDelivery.of(refusedSome, a.plan().anyAcceptedBefore());
            if (split != null) {
                return split(a, envelope, split, reply, account);
            }
        }
        Verdict verdict = FailureClass.of(reply) == FailureClass.PERMANENT ? Verdict.PERMANENT : Verdict.TRANSIENT;
        if (a.plan().simulated().isEmpty()) {
            return attempt(a.mail(), a.started(), verdict, reply, FailureText.describe(failure), List.of(), account);
        }
        RecipientStatus status = verdict == Verdict.PERMANENT ? RecipientStatus.REFUSED : RecipientStatus.DEFERRED;
        List<RecipientResult> results = new ArrayList<>(); // the real recipients each get the mail's reply
        for (Address recipient : a.plan().real()) {
            results.add(new RecipientResult(PartialDelivery.bare(recipient), status, reply.code(), reply.text(),
                    reply.enhancedStatus()));
        }
        PartialDelivery.Split split = Simulation.merge(new PartialDelivery.Split(verdict, FailureText.describe(failure),
                results), a.plan().simulated(), a.plan().anyAcceptedBefore());
        return attempt(a.mail(), a.started(), split.verdict(), reply, split.error(), split.recipients(), account);
    }

    /**
     * @return the attempt of a mail sent as one transaction per recipient: in doubt when a transaction's end of DATA
     *         got no answer, else sent once no recipient is left open (if any recipient ever accepted it), else tried
     *         again while any is, else failed
     */
    Change separately(Attempt a, RecipientPlan.Envelope envelope, SeparateTransactions.Outcome outcome,
                      String account) {
        boolean accepted = a.plan().anyAcceptedBefore() || outcome.anySent();
        Verdict verdict = outcome.inDoubt() ? Verdict.IN_DOUBT : outcome.anyDeferred() ? Verdict.TRANSIENT
                : accepted ? Verdict.SENT : Verdict.PERMANENT;
        List<String> refusals = outcome.recipients().stream().filter(r -> r.status() != RecipientStatus.SENT)
                .map(r -> r.address() + " " + (r.status() == RecipientStatus.REFUSED ? "refused" : "deferred") + ": "
                        + (r.replyText() != null ? r.replyText() : "not tried"))
                .toList();
        String error = outcome.inDoubt() ? "in doubt: the end of DATA was sent and no answer came ("
                + (outcome.lastReply().text() == null ? "no reply" : outcome.lastReply().text()) + "); "
                + String.join("; ", refusals) : refusals.isEmpty() ? null : String.join("; ", refusals);
        PartialDelivery.Split split = merged(new PartialDelivery.Split(verdict, error, outcome.recipients()), a.plan(), envelope);
        return attempt(a.mail(), a.started(), outcome.inDoubt() ? Verdict.IN_DOUBT : split.verdict(), outcome.lastReply(),
                split.error(), split.recipients(), account);
    }

    private Change split(Attempt a, RecipientPlan.Envelope envelope, PartialDelivery.Split sent, SmtpReply reply,
                         String account) {
        PartialDelivery.Split split = merged(sent, a.plan(), envelope);
        return attempt(a.mail(), a.started(), split.verdict(), reply, split.error(), split.recipients(), account);
    }

    /** @return the split with the recipients refused for want of SMTPUTF8 and the simulated ones added */
    private static PartialDelivery.Split merged(PartialDelivery.Split sent, RecipientPlan plan,
                                                RecipientPlan.Envelope envelope) {
        PartialDelivery.Split split = SmtpUtf8Gate.with(sent, envelope.notSmtpUtf8());
        return plan.simulated().isEmpty() ? split : Simulation.merge(split, plan.simulated(), plan.anyAcceptedBefore());
    }

    private Change attempt(ClaimedMail mail, Instant started, Verdict verdict, SmtpReply reply, String error,
                           List<RecipientResult> recipients, String account) {
        return new Change.Attempted(new AttemptResult(mail.id(), lease, server, account, mail.attemptsRemaining(),
                mail.expiresAt(), started, Instant.now(), verdict, reply.code(), reply.text(), reply.enhancedStatus(),
                error, recipients));
    }
}
