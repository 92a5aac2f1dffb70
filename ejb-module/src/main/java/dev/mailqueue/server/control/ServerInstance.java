package dev.mailqueue.server.control;

import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import dev.mailqueue.settings.control.QueueSettings;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * Names this server in leases and in the attempt log: {@code host/name}, where name is
 * {@code mailqueue.instance} (server.xml sets it to the Liberty server's name).
 */
@ApplicationScoped
public class ServerInstance {

    @Inject
    QueueSettings settings;

    private String name;

    @PostConstruct
    void init() {
        name = host() + "/" + settings.instance();
    }

    /** @return this server's name, e.g. {@code mail1.example.com/mailqueue}, at most 120 characters */
    public String name() {
        return name.length() <= 120 ? name : name.substring(0, 120);
    }

    /**
     * @param jobExecutionId the dispatch job execution that claims
     * @return the lease owner for rows that execution claims: unique per server and execution
     */
    public String leaseOwner(long jobExecutionId) {
        return name() + "#" + jobExecutionId;
    }

    private static String host() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "unknown-host";
        }
    }
}
