package dev.mailqueue.account.control;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.mail.Session;
import dev.mailqueue.server.control.ServerResources;

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
     *                               (a relative name both servers resolve, see {@link ServerResources})
     */
    public Session of(Account account) {
        return sessions.computeIfAbsent(account.name(), name -> lookup(account));
    }

    private static Session lookup(Account account) {
        return ServerResources.lookup(account.jndiName(), Session.class, "the mail session of account " + account.name()
                + " (Liberty: <mailSession jndiName=\"" + account.jndiName() + "\"> in server.xml; WildFly: java:/"
                + account.jndiName() + ", src/wildfly/configure.cli)");
    }
}
