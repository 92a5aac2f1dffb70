package dev.mailqueue.login.boundary;

import dev.mailqueue.account.control.Account;
import dev.mailqueue.account.control.AccountSessions;
import dev.mailqueue.account.control.RelayKind;
import dev.mailqueue.account.control.Accounts;
import dev.mailqueue.login.control.AccessTokens;
import dev.mailqueue.login.control.LoginState;
import jakarta.annotation.PostConstruct;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.inject.Inject;
import jakarta.mail.Session;

import java.util.Arrays;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * At application start, reads how each account logs in ({@link AccessTokens}, so that a wrong OAuth2 setting stops
 * the start with a message naming it) and checks that the mail session of each OAuth2 account asks for SASL
 * {@code XOAUTH2}: Angus Mail uses it only when the session says so ({@code mail.smtp.auth.xoauth2.disable} is true
 * by default), and with PLAIN or LOGIN the token would go to a server that does not take it as a password. No token
 * is requested here: an authorization server that is away at start delays mail, not the start.
 */
@Singleton
@Startup
public class OAuth2AccountsCheck {

    private static final Logger LOG = Logger.getLogger(OAuth2AccountsCheck.class.getName());

    @Inject
    Accounts accounts;

    @Inject
    AccountSessions sessions;

    @Inject
    AccessTokens tokens;

    @PostConstruct
    void check() {
        for (Account account : accounts.all()) {
            Optional<LoginState> login = tokens.state(account.name());
            if (login.isPresent()) {
                if (account.relay() == RelayKind.SES) {
                    throw new IllegalStateException("mailqueue.account." + account.name() + ".login=oauth2, but the"
                            + " account sends through Amazon SES: its requests are signed with its AWS credentials"
                            + " (mailqueue.account." + account.name() + ".ses.*); remove the login setting");
                }
                if (!account.usesSmtp()) {
                    LOG.info(() -> "Account " + account.name() + " sends through " + account.relay().value()
                            + " with OAuth2 " + login.get().grant() + " tokens from " + login.get().tokenUri());
                    continue;
                }
                requireXoauth2(account, sessions.of(account));
                LOG.info(() -> "SMTP account " + account.name() + " logs in with XOAUTH2 and OAuth2 "
                        + login.get().grant() + " tokens from " + login.get().tokenUri());
            }
        }
    }

    /**
     * @throws IllegalStateException naming the session's properties when it does not authenticate, does not list
     *                               XOAUTH2 among its mechanisms, or names no user
     */
    static void requireXoauth2(Account account, Session session) {
        String mechanisms = session.getProperty("mail.smtp.auth.mechanisms");
        boolean xoauth2 = mechanisms != null && Arrays.stream(mechanisms.trim().split("[\\s,]+"))
                .anyMatch("XOAUTH2"::equalsIgnoreCase);
        boolean user = session.getProperty("mail.smtp.user") != null || session.getProperty("mail.user") != null;
        if (!Boolean.parseBoolean(session.getProperty("mail.smtp.auth")) || !xoauth2 || !user) {
            throw new IllegalStateException("mailqueue.account." + account.name() + ".login is oauth2, so the mail session "
                    + account.jndiName() + " must set mail.smtp.auth=true, mail.smtp.auth.mechanisms=XOAUTH2 and name the"
                    + " mailbox in mail.smtp.user; it has mail.smtp.auth=" + session.getProperty("mail.smtp.auth")
                    + ", mail.smtp.auth.mechanisms=" + mechanisms + ", user " + (user ? "set" : "not set"));
        }
    }
}
