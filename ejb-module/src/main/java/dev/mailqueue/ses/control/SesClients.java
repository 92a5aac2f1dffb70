package dev.mailqueue.ses.control;

import dev.mailqueue.account.control.Account;
import dev.mailqueue.account.control.Accounts;
import dev.mailqueue.account.control.RelayKind;
import dev.mailqueue.settings.control.Settings;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sesv2.SesV2Client;
import software.amazon.awssdk.services.sesv2.SesV2ClientBuilder;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The Amazon SES accounts of this server ({@link RelayKind#SES}) with their settings ({@link SesSettings}, read at
 * start) and one SDK client each, made at first use and shared by every claimer (the SDK's clients are thread
 * safe). Each client sends through the Apache HttpClient 5 with the account's timeouts, and makes exactly one try
 * a request: the SDK's retries are off ({@link AwsRetryStrategy#doNotRetry()}), because a retried {@code SendEmail}
 * whose first answer was lost sends the mail twice. The queue decides every retry, as for SMTP. Thread safe.
 */
@ApplicationScoped
public class SesClients {

    /**
     * How long a pooled connection may sit idle and still be used: well below the idle timeouts of AWS's load
     * balancers, so that the request of a mail is rarely written to a connection the other side already closed (which
     * leaves the mail in doubt: a request written and not answered may have been processed).
     */
    static final Duration MAX_IDLE = Duration.ofSeconds(20);

    @Inject
    Accounts accounts;

    private Map<String, SesSettings> settings;
    private final Map<String, SesV2Client> clients = new ConcurrentHashMap<>();

    @PostConstruct
    void read() {
        Settings config = Settings.fromConfig(SesClients.class);
        use(accounts.all(), account -> SesSettings.parse(account, config));
    }

    private void use(Iterable<Account> all, java.util.function.Function<String, SesSettings> read) {
        Map<String, SesSettings> map = new LinkedHashMap<>();
        for (Account account : all) {
            if (account.relay() == RelayKind.SES) {
                map.put(account.name(), read.apply(account.name()));
            }
        }
        settings = Map.copyOf(map);
    }

    /** @return the settings of every SES account, by name; empty when no account sends through SES */
    public Map<String, SesSettings> settings() {
        return settings;
    }

    /** @return the account's settings, empty when it is no SES account */
    public Optional<SesSettings> settings(String account) {
        return Optional.ofNullable(settings.get(account));
    }

    /**
     * @param account an SES account
     * @return its client, made at first use
     * @throws IllegalArgumentException when the account does not send through SES
     */
    public SesV2Client client(String account) {
        SesSettings s = settings.get(account);
        if (s == null) {
            throw new IllegalArgumentException("account " + account + " does not send through Amazon SES");
        }
        return clients.computeIfAbsent(account, a -> build(s));
    }

    /**
     * @param s an account's settings
     * @return a client with the account's region, endpoint, credentials and timeouts, and no retries
     */
    static SesV2Client build(SesSettings s) {
        AwsCredentialsProvider credentials = s.hasOwnKey()
                ? StaticCredentialsProvider.create(AwsBasicCredentials.create(s.accessKeyId(), s.secretAccessKey()))
                : DefaultCredentialsProvider.builder().build();
        SesV2ClientBuilder builder = SesV2Client.builder()
                .region(Region.of(s.region()))
                .credentialsProvider(credentials)
                .httpClientBuilder(Apache5HttpClient.builder()
                        .connectionTimeout(s.connectTimeout())
                        .socketTimeout(s.timeout())
                        .connectionMaxIdleTime(MAX_IDLE)
                        .maxConnections(64))
                .overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.doNotRetry())
                        .apiCallTimeout(s.timeout().plus(s.connectTimeout()))
                        .apiCallAttemptTimeout(s.timeout().plus(s.connectTimeout())));
        if (s.endpoint() != null) {
            builder.endpointOverride(s.endpoint());
        }
        return builder.build();
    }

    @PreDestroy
    void closeAll() {
        clients.values().forEach(SesV2Client::close);
        clients.clear();
    }
}
