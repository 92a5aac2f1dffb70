package dev.mailqueue.health.boundary;

import dev.mailqueue.account.control.AccountHealth;
import dev.mailqueue.account.control.Accounts;
import dev.mailqueue.login.control.AccessTokens;
import dev.mailqueue.login.control.LoginState;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import dev.mailqueue.health.registration.QueueHealthCheck;

import java.util.Map;

/**
 * Which SMTP accounts this server can reach, as its claimers last found them ({@link AccountHealth}):
 * one entry per configured account, {@code "up"} or {@code "down since ..., tried again at ..."}. It
 * opens no connection: an account is down from the first failed connection until one succeeds. The
 * check itself stays UP while accounts are down: readiness tells a load balancer whether to send
 * enqueues here, and a queue whose relay is away should go on accepting mail, which waits in the queue
 * with its attempts untouched. An OAuth2 account's entry adds its grant, its token's expiry and the last error of
 * its token requests (e.g. the authorization server's {@code invalid_client}); never the token. Accounts down are also counted in the metrics and the statistics.
 */
@QueueHealthCheck(QueueHealthCheck.Procedure.READINESS)
@ApplicationScoped
public class SmtpAccountsReadiness implements HealthCheck {

    @Inject
    Accounts accounts;

    @Inject
    AccountHealth health;

    @Inject
    AccessTokens tokens;

    @Override
    public HealthCheckResponse call() {
        Map<String, AccountHealth.Down> down = health.down();
        HealthCheckResponseBuilder response = HealthCheckResponse.named("smtp-accounts").up()
                .withData("accountsDown", down.size());
        accounts.all().forEach(account -> {
            AccountHealth.Down d = down.get(account.name());
            response.withData(account.name(), (d == null ? "up"
                    : "down since " + d.since() + ", tried again at " + d.retryAt())
                    + tokens.state(account.name()).map(SmtpAccountsReadiness::login).orElse(""));
        });
        return response.build();
    }

    /** @return what readiness says of an OAuth2 login: the grant, the token's expiry, the last token error */
    static String login(LoginState state) {
        String token = state.tokenExpiresAt() == null ? "no token" : "token until " + state.tokenExpiresAt();
        return "; oauth2 " + state.grant() + ", " + token
                + (state.lastError() == null ? "" : "; last token error at " + state.lastErrorAt() + ": " + state.lastError());
    }
}
