package dev.mailqueue.server.control;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;

import javax.naming.InitialContext;
import javax.naming.NamingException;
import javax.sql.DataSource;

/**
 * The resources the server's configuration defines for the queue, found by names that Open Liberty and
 * WildFly both resolve. Each server binds them differently, so the application looks them up with a plain
 * {@link InitialContext} lookup of a relative name, never with {@code @Resource(lookup=...)}:
 * <ul>
 *   <li>Open Liberty binds {@code jndiName="jdbc/mailqueue"} (liberty/db/*.xml) and {@code mail/<account>}
 *       (server.xml) under exactly these names;</li>
 *   <li>WildFly resolves a relative name of a plain lookup in {@code java:/}, so its data source is bound as
 *       {@code java:/jdbc/mailqueue} and its mail sessions as {@code java:/mail/<account>}
 *       (src/wildfly/configure.cli). A relative {@code @Resource(lookup=...)}, by contrast, is resolved
 *       under the component's {@code java:comp/env} there, where nothing is bound.</li>
 * </ul>
 * The persistence unit names the same data source ({@code <jta-data-source>jdbc/mailqueue}), which
 * WildFly reads as {@code java:/jdbc/mailqueue} too.
 */
@ApplicationScoped
public class ServerResources {

    /** The queue's data source, as the application looks it up. */
    public static final String DATA_SOURCE = "jdbc/mailqueue";

    private volatile DataSource dataSource;

    /**
     * @return the queue's data source; connections taken from it join the caller's JTA transaction
     * @throws IllegalStateException when the server binds no data source as {@value #DATA_SOURCE}
     *                               (its configuration lacks one)
     */
    @Produces
    @QueueDatabase
    public DataSource dataSource() {
        DataSource found = dataSource;
        if (found == null) {
            found = lookup(DATA_SOURCE, DataSource.class, "a data source (Liberty: liberty/db/<database>.xml;"
                    + " WildFly: java:/jdbc/mailqueue in src/wildfly/configure.cli)");
            dataSource = found;
        }
        return found;
    }

    /**
     * Looks up a resource the server's configuration defines.
     *
     * @param name     its relative JNDI name, e.g. {@code mail/mailqueue}
     * @param type     what it must be
     * @param describe what configuration should define it, for the error
     * @param <T>      its type
     * @return the bound resource
     * @throws IllegalStateException when nothing of that type is bound under the name
     */
    public static <T> T lookup(String name, Class<T> type, String describe) {
        Object bound;
        try {
            bound = new InitialContext().lookup(name);
        } catch (NamingException e) {
            throw new IllegalStateException("nothing is bound as " + name + ": the server's configuration must define "
                    + describe, e);
        }
        if (!type.isInstance(bound)) {
            throw new IllegalStateException(name + " is not " + type.getSimpleName() + " but "
                    + (bound == null ? "null" : bound.getClass().getName()) + ": the server's configuration must define "
                    + describe);
        }
        return type.cast(bound);
    }
}
