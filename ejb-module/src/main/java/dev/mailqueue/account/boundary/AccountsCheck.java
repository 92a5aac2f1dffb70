package dev.mailqueue.account.boundary;

import dev.mailqueue.account.control.Account;
import dev.mailqueue.account.control.AccountSessions;
import dev.mailqueue.account.control.Accounts;
import jakarta.annotation.PostConstruct;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.inject.Inject;
import jakarta.mail.Session;

import java.util.logging.Logger;

/**
 * At application start, reads the account settings and looks up every account's mail session, so a
 * wrong setting or a missing {@code <mailSession>} stops the start with a message that names it
 * instead of failing mail later. That includes an account with a bounce address (VERP) whose session
 * sets an envelope sender of its own ({@code mail.smtp.from}): the session's would win over VERP's.
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
            if (account.usesSmtp()) {
                Session session = sessions.of(account);
                if (account.usesVerp()) {
                    refuseOwnEnvelopeSender(account, session);
                }
            }
            LOG.info(() -> (account.usesSmtp() ? "SMTP account " + account.name() + " (" + account.jndiName() + ")"
                    : "Amazon SES account " + account.name())
                    + (account.failover().isEmpty() ? "" : ", fails over to " + account.failover())
                    + (account.senderDomains().isEmpty() ? "" : ", sender domains " + account.senderDomains())
                    + (account.perMinute() > 0 ? ", at most " + account.perMinute() + " per minute" : "")
                    + (account.perDay() > 0 ? ", at most " + account.perDay() + " per day" : "")
                    + (account.usesVerp() ? ", VERP envelope sender " + account.bounceAddress().replace("@", "+<token>@") : ""));
        }
    }

    /**
     * Angus Mail's SMTP transport takes MAIL FROM from the session's {@code mail.smtp.from} before the
     * message's ({@code dev.mailqueue.dispatch.control.GatedMessage}); a VERP account's session must not set one.
     *
     * @throws IllegalStateException naming both settings when it does
     */
    private static void refuseOwnEnvelopeSender(Account account, Session session) {
        for (String protocol : new String[]{"smtp", "smtps"}) {
            String from = session.getProperty("mail." + protocol + ".from");
            if (from != null && !from.isBlank()) {
                throw new IllegalStateException("mailqueue.account." + account.name() + ".bounce-address is set, but the"
                        + " mail session " + account.jndiName() + " sets its own envelope sender mail." + protocol + ".from="
                        + from + ", which would win over VERP: remove one of them (for the default account:"
                        + " mailqueue.smtp.envelope-from)");
            }
        }
    }
}
