package dev.mailqueue.dispatch.control;

import dev.mailqueue.queue.entity.RecipientStatus;
import dev.mailqueue.queue.control.RecipientResult;
import dev.mailqueue.queue.control.Verdict;
import dev.mailqueue.settings.control.DeliveryMode;
import dev.mailqueue.address.control.SimulatorAddress;
import jakarta.mail.Address;

import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;

/**
 * The replies of recipients that are not sent to: addresses at the simulator domain in every mode
 * ({@link SimulatorAddress}), and every recipient of a SANDBOX server. Each gets the reply a real server
 * would give for its outcome, so that the rest of the pipeline (recipient outcomes, retries, events)
 * runs as it does for mail that went out.
 */
final class Simulation {

    /** The reply text of a recipient accepted in SANDBOX mode. */
    static final String SANDBOX_REPLY = "2.0.0 sandbox: accepted and not sent (mailqueue.delivery.mode=sandbox)";

    private Simulation() {
    }

    /**
     * The recipients of one attempt, split into those sent to and those simulated.
     *
     * @param real      the recipients the SMTP server gets, in order
     * @param simulated one result per other recipient
     */
    record Split(Address[] real, List<RecipientResult> simulated) {
    }

    /**
     * @param recipients   the attempt's open recipients
     * @param mode         this server's delivery mode
     * @param firstAttempt true when the mail has had no attempt since it was queued (or requeued)
     * @return which recipients go to the SMTP server, and the simulated replies of the others
     */
    static Split split(Address[] recipients, DeliveryMode mode, boolean firstAttempt) {
        List<Address> real = new ArrayList<>();
        List<RecipientResult> simulated = new ArrayList<>();
        for (Address recipient : recipients) {
            String address = PartialDelivery.bare(recipient);
            SimulatorAddress.Kind kind = SimulatorAddress.of(address);
            if (kind != null) {
                simulated.add(reply(address, kind, firstAttempt));
            } else if (mode == DeliveryMode.SANDBOX) {
                simulated.add(new RecipientResult(address, RecipientStatus.SENT, 250, SANDBOX_REPLY, "2.0.0"));
            } else {
                real.add(recipient);
            }
        }
        return new Split(real.toArray(Address[]::new), simulated);
    }

    private static RecipientResult reply(String address, SimulatorAddress.Kind kind, boolean firstAttempt) {
        return switch (kind) {
            case SUCCESS, COMPLAINT -> new RecipientResult(address, RecipientStatus.SENT, 250,
                    "2.0.0 simulated: accepted (" + SimulatorAddress.DOMAIN + ")", "2.0.0");
            case DEFER -> firstAttempt
                    ? new RecipientResult(address, RecipientStatus.DEFERRED, 450,
                            "4.2.1 simulated: mailbox busy, try again later", "4.2.1")
                    : new RecipientResult(address, RecipientStatus.SENT, 250,
                            "2.0.0 simulated: accepted on a later attempt", "2.0.0");
            case SUPPRESSED -> new RecipientResult(address, RecipientStatus.SUPPRESSED, null,
                    "simulated: on the suppression list", null);
            case BOUNCE -> new RecipientResult(address, RecipientStatus.REFUSED, 550,
                    "5.1.1 simulated: no such mailbox", "5.1.1");
            case UNKNOWN -> new RecipientResult(address, RecipientStatus.REFUSED, 550,
                    "5.1.1 simulated: no such simulator address; use success, bounce, defer, complaint or suppressed @"
                            + SimulatorAddress.DOMAIN, "5.1.1");
        };
    }

    /**
     * @param sent              what the SMTP server's replies made of the real recipients, or null when
     *                          there were none
     * @param simulated         the simulated recipients' results
     * @param anyAcceptedBefore true when an earlier attempt had some recipient accept the mail
     * @return one split for the attempt: every recipient's result, and the mail's verdict from all of them
     *         (open while any is deferred; else sent when any ever accepted it; else refused for good)
     */
    static PartialDelivery.Split merge(PartialDelivery.Split sent, List<RecipientResult> simulated,
                                       boolean anyAcceptedBefore) {
        List<RecipientResult> all = new ArrayList<>(sent == null ? List.of() : sent.recipients());
        all.addAll(simulated);
        StringJoiner errors = new StringJoiner("; ");
        if (sent != null && sent.error() != null) {
            errors.add(sent.error());
        }
        for (RecipientResult r : simulated) {
            if (r.status() != RecipientStatus.SENT) {
                errors.add(r.address() + " " + r.status().name().toLowerCase(java.util.Locale.ROOT) + ": " + r.replyText());
            }
        }
        boolean open = all.stream().anyMatch(r -> r.status() == RecipientStatus.DEFERRED)
                || sent != null && sent.verdict() == Verdict.TRANSIENT;
        boolean accepted = anyAcceptedBefore || all.stream().anyMatch(r -> r.status() == RecipientStatus.SENT)
                || sent != null && sent.verdict() == Verdict.SENT;
        Verdict verdict = open ? Verdict.TRANSIENT : accepted ? Verdict.SENT : Verdict.PERMANENT;
        return new PartialDelivery.Split(verdict, errors.length() == 0 ? null : errors.toString(), all);
    }
}
