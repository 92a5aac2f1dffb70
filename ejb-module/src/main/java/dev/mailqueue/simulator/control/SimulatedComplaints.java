package dev.mailqueue.simulator.control;

import dev.mailqueue.address.control.SimulatorAddress;
import dev.mailqueue.bounce.control.BounceRecorder;
import dev.mailqueue.queue.control.BounceReport;
import dev.mailqueue.address.control.VerpToken;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Records the complaint of a {@code complaint@}{@value SimulatorAddress#DOMAIN} recipient once its mail's
 * outcome is durable, as the bounce intake records a feedback report (RFC 5965, {@code Feedback-Type:
 * abuse}): the recipient becomes COMPLAINED, the address goes on the suppression list, a {@code complained}
 * event follows the {@code sent} one. The report's key is the mail and address, so it is recorded once.
 */
@ApplicationScoped
public class SimulatedComplaints {

    private static final Logger LOG = Logger.getLogger(SimulatedComplaints.class.getName());

    @Inject
    BounceRecorder recorder;

    /**
     * @param mailId    the mail that was accepted for the address (its outcome already committed)
     * @param messageId its Message-ID
     * @param address   the complaining recipient, as the mail names it
     * @param position  its position among the mail's To, Cc and Bcc, as a per-recipient VERP token names it
     */
    public void complain(long mailId, String messageId, String address, int position) {
        BounceReport report = new BounceReport("simulated-complaint:" + mailId + ":" + address.toLowerCase(java.util.Locale.ROOT),
                BounceReport.Kind.COMPLAINT, messageId, new VerpToken.Named(mailId, java.util.Optional.of(position)),
                List.of(new BounceReport.Recipient(address, address, BounceReport.Action.COMPLAINED, null,
                        "Feedback-Type: abuse (simulated)")),
                "simulated complaint by " + address);
        try {
            recorder.record(report);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "could not record the simulated complaint of " + address + " for mail " + mailId, e);
        }
    }
}
