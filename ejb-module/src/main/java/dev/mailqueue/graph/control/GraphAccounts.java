package dev.mailqueue.graph.control;

import dev.mailqueue.account.control.Account;
import dev.mailqueue.account.control.Accounts;
import dev.mailqueue.account.control.RelayKind;
import dev.mailqueue.settings.control.Settings;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.net.http.HttpClient;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The Microsoft Graph accounts of this server ({@link RelayKind#GRAPH}) with their settings ({@link GraphSettings},
 * read at start) and the one HTTP client they share (the JDK's; HTTP/1.1, no redirects; it repeats no POST).
 * Thread safe.
 */
@ApplicationScoped
public class GraphAccounts {

    @Inject
    Accounts accounts;

    private Map<String, GraphSettings> settings;
    private volatile HttpClient client;

    @PostConstruct
    void read() {
        Settings config = Settings.fromConfig(GraphAccounts.class);
        use(accounts.all(), account -> GraphSettings.parse(account, config));
    }

    private void use(Iterable<Account> all, java.util.function.Function<String, GraphSettings> read) {
        Map<String, GraphSettings> map = new LinkedHashMap<>();
        for (Account account : all) {
            if (account.relay() == RelayKind.GRAPH) {
                map.put(account.name(), read.apply(account.name()));
            }
        }
        settings = Map.copyOf(map);
    }

    /** @return the settings of every Graph account, by name; empty when no account sends through Graph */
    public Map<String, GraphSettings> settings() {
        return settings;
    }

    /** @return the account's settings, empty when it is no Graph account */
    public Optional<GraphSettings> settings(String account) {
        return Optional.ofNullable(settings.get(account));
    }

    /** @return the HTTP client of every Graph account, made at first use with the longest connect timeout */
    public HttpClient client() {
        HttpClient c = client;
        if (c == null) {
            synchronized (this) {
                if (client == null) {
                    Duration connect = settings.values().stream().map(GraphSettings::connectTimeout)
                            .max(Duration::compareTo).orElse(Duration.ofSeconds(5));
                    client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                            .followRedirects(HttpClient.Redirect.NEVER).connectTimeout(connect).build();
                }
                c = client;
            }
        }
        return c;
    }
}
