package dev.mailqueue.ses.boundary;

import dev.mailqueue.ses.control.SesClients;
import dev.mailqueue.ses.control.SesSettings;
import jakarta.annotation.PostConstruct;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.inject.Inject;

import java.util.logging.Logger;

/**
 * At start, reads the settings of every account that sends through Amazon SES ({@link SesSettings}), so that a
 * missing region, a malformed endpoint or half a key stops the deployment with a message that names the setting
 * (never the secret), and logs each account's region, endpoint and where its credentials come from.
 */
@Singleton
@Startup
public class SesAccountsCheck {

    private static final Logger LOG = Logger.getLogger(SesAccountsCheck.class.getName());

    @Inject
    SesClients clients;

    @PostConstruct
    void check() {
        for (SesSettings s : clients.settings().values()) {
            LOG.info(() -> "Amazon SES account " + s.account() + ": region " + s.region()
                    + (s.endpoint() == null ? "" : ", endpoint " + s.endpoint())
                    + (s.configurationSet() == null ? "" : ", configuration set " + s.configurationSet())
                    + ", credentials " + (s.hasOwnKey() ? "access key ..." + s.keyIdEnd() : "of the SDK's default chain")
                    + ", answer within " + s.timeout().toMillis() + " ms");
        }
    }
}
