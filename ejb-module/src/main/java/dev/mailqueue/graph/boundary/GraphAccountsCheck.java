package dev.mailqueue.graph.boundary;

import dev.mailqueue.graph.control.GraphAccounts;
import dev.mailqueue.graph.control.GraphSettings;
import dev.mailqueue.login.control.AccessTokens;
import jakarta.annotation.PostConstruct;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.inject.Inject;

import java.util.logging.Logger;

/**
 * At start, reads the settings of every account that sends through Microsoft Graph ({@link GraphSettings}) and
 * requires each to log in with OAuth2 (its token is Graph's bearer token), so that a mistake stops the deployment
 * with a message that names the setting.
 */
@Singleton
@Startup
public class GraphAccountsCheck {

    private static final Logger LOG = Logger.getLogger(GraphAccountsCheck.class.getName());

    @Inject
    GraphAccounts accounts;

    @Inject
    AccessTokens tokens;

    @PostConstruct
    void check() {
        for (GraphSettings s : accounts.settings().values()) {
            if (!tokens.usesOAuth2(s.account())) {
                throw new IllegalStateException("mailqueue.account." + s.account() + ".login must be oauth2: the account"
                        + " sends through Microsoft Graph with an access token (scope https://graph.microsoft.com/.default,"
                        + " application permission Mail.Send)");
            }
            LOG.info(() -> "Microsoft Graph account " + s.account() + ": sends as " + s.mailbox() + " at "
                    + s.sendMail() + ", answer within " + s.timeout().toMillis() + " ms");
        }
    }
}
