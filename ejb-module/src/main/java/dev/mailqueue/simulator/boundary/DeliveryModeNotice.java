package dev.mailqueue.simulator.boundary;

import dev.mailqueue.settings.control.QueueSettings;
import dev.mailqueue.address.control.SimulatorAddress;
import jakarta.annotation.PostConstruct;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.inject.Inject;

import java.util.logging.Logger;

/**
 * Says at start, in capitals where it matters, what this server does with mail: a staging server in
 * SANDBOX or REDIRECT mode must never be mistaken for a live one in its log.
 */
@Singleton
@Startup
public class DeliveryModeNotice {

    private static final Logger LOG = Logger.getLogger(DeliveryModeNotice.class.getName());

    @Inject
    QueueSettings settings;

    @PostConstruct
    void announce() {
        switch (settings.deliveryMode()) {
            case SANDBOX -> LOG.warning("SANDBOX MODE: NO MAIL LEAVES THIS SERVER. Every mail is claimed, composed and"
                    + " recorded as sent without being sent (mailqueue.delivery.mode=sandbox).");
            case REDIRECT -> LOG.warning("REDIRECT MODE: EVERY MAIL GOES TO " + settings.redirectTo()
                    + " INSTEAD OF ITS RECIPIENTS (mailqueue.delivery.mode=redirect); they are named in X-Original-To.");
            case LIVE -> LOG.info(() -> "delivery mode LIVE: mail goes to its recipients; addresses at "
                    + SimulatorAddress.DOMAIN + " are simulated, never sent to");
        }
    }
}
