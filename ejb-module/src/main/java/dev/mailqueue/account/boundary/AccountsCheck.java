package dev.mailqueue.account.boundary;

import dev.mailqueue.account.control.Account;
import dev.mailqueue.account.control.AccountSessions;
import dev.mailqueue.account.control.Accounts;
import jakarta.annotation.PostConstruct;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.inject.Inject;

import java.util.logging.Logger;

/**
 * At application start, reads the account settings and looks up every account's mail session, so a
 * wrong setting or a missing {@code <mailSession>} stops the start with a message that names it
 * instead of failing mail later.
 */
@Singleton
@Startup
public class AccountsCheck {

    private static final Logger LOG = Logger.getLogger(AccountsCheck.class.getName());

    @Inject
    Accounts accounts;

    @Inject
    AccountSessions sessions;

    @PostConstruct
    void check() {
        for (Account account : accounts.all()) {
            sessions.of(account);
            LOG.info(() -> "SMTP account " + account.name() + " (" + account.jndiName() + ")"
                    + (account.failover().isEmpty() ? "" : ", fails over to " + account.failover())
                    + (account.senderDomains().isEmpty() ? "" : ", sender domains " + account.senderDomains())
                    + (account.perMinute() > 0 ? ", at most " + account.perMinute() + " per minute" : "")
                    + (account.perDay() > 0 ? ", at most " + account.perDay() + " per day" : ""));
        }
    }
}
