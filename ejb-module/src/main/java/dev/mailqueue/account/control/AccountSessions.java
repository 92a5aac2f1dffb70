package dev.mailqueue.account.control;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.mail.Session;

import javax.naming.InitialContext;
import javax.naming.NamingException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The container's mail session of each account, looked up by JNDI name ({@code mail/<account>}) and
 * kept; never built in code, so host, credentials and envelope sender stay in server configuration.
 */
@ApplicationScoped
public class AccountSessions {

    private final Map<String, Session> sessions = new ConcurrentHashMap<>();

    /**
     * @param account a configured account
     * @return its mail session
     * @throws IllegalStateException when the server binds no mail session under the account's JNDI name
     */
    public Session of(Account account) {
        return sessions.computeIfAbsent(account.name(), name -> lookup(account));
    }

    private static Session lookup(Account account) {
        try {
            Object bound = new InitialContext().lookup(account.jndiName());
            if (bound instanceof Session session) {
                return session;
            }
            throw new IllegalStateException("account " + account.name() + ": " + account.jndiName()
                    + " is not a mail session but " + (bound == null ? "null" : bound.getClass().getName()));
        } catch (NamingException e) {
            throw new IllegalStateException("account " + account.name() + ": no <mailSession> with jndiName=\""
                    + account.jndiName() + "\" in the server configuration", e);
        }
    }
}
