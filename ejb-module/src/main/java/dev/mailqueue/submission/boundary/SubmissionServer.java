package dev.mailqueue.submission.boundary;

import dev.mailqueue.budget.control.InflightBudget;
import dev.mailqueue.metrics.control.Metrics;
import dev.mailqueue.settings.control.Settings;
import dev.mailqueue.submission.control.AddressLockout;
import dev.mailqueue.submission.control.QueueApiClient;
import dev.mailqueue.submission.control.SessionPool;
import dev.mailqueue.submission.control.SubmissionAuthentication;
import dev.mailqueue.submission.control.SubmissionHandler;
import dev.mailqueue.submission.control.SubmissionLogin;
import dev.mailqueue.submission.control.SubmissionSessions;
import dev.mailqueue.submission.control.SubmissionSettings;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.inject.Inject;
import org.subethamail.smtp.auth.EasyAuthenticationHandlerFactory;
import org.subethamail.smtp.server.SMTPServer;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * SMTP submission into the queue (RFC 6409), off unless {@code mailqueue.submission.enabled}: an SMTP listener
 * built on SubEthaSMTP, started with the application and stopped with it. Its sessions run on threads of the
 * container's {@link ManagedThreadFactory}; the library's own accept loop only hands each connection to them.
 *
 * <p>What it offers and enforces: EHLO with SIZE (RFC 1870), 8BITMIME (RFC 6152), SMTPUTF8 (RFC 6531),
 * PIPELINING (RFC 2920) and, with a key store, STARTTLS (RFC 3207); AUTH PLAIN and LOGIN (RFC 4954) only over TLS
 * (or from loopback when allowed), always required before MAIL: no unauthenticated client may send anything, so
 * the listener is never an open relay. Limits: connections at once, per client address, messages per connection,
 * recipients per message, message size, idle time, a deadline to log in and one for the whole connection, failed
 * logins per connection and per client address (then a lockout, logged once and counted in the metric
 * {@code mailqueue.submission.auth.lockouts}; connections refused because the listener is full count in
 * {@code mailqueue.submission.connections.refused}), and a DATA buffer charged to the application's in-flight budget
 * ({@link SubmissionSettings}, {@link InflightBudget}). Each message goes to the queue
 * as raw MIME through the server's API as the logged-in user ({@link QueueApiClient}), and DATA is answered 250
 * only once it is committed.
 *
 * <p>A listener that cannot start (its port taken, a key store that cannot be read) is logged as SEVERE and the
 * application runs on without it: REST, the EJB and the dispatcher do not depend on it.
 */
@Singleton
@Startup
public class SubmissionServer {

    private static final Logger LOG = Logger.getLogger(SubmissionServer.class.getName());

    /** How long one call of the queue's API may take, connect and answer. */
    private static final Duration API_TIMEOUT = Duration.ofSeconds(60);

    /**
     * Connections SubEthaSMTP accepts beyond {@code max-connections}, so that they reach the listener's own
     * {@code 421 4.3.2} instead of its generic one; it keeps 10 more of its own for its "too many connections".
     */
    static final int REFUSAL_ROOM = 10;

    @Resource
    ManagedThreadFactory threads;

    @Inject
    Metrics metrics;

    @Inject
    InflightBudget budget;

    private SMTPServer server;
    private ExecutorService sessions;
    private ScheduledThreadPoolExecutor timers;

    @PostConstruct
    void start() {
        SubmissionSettings settings = SubmissionSettings.read(Settings.fromConfig(SubmissionServer.class));
        if (!settings.enabled()) {
            LOG.info("SMTP submission is off (mailqueue.submission.enabled)");
            return;
        }
        try {
            server = build(settings);
            server.start();
            LOG.info(() -> "SMTP submission: listening on " + settings.bindAddress() + ":" + settings.port()
                    + (settings.keystore().isPresent() ? " with STARTTLS" : " without STARTTLS")
                    + ", handing messages to " + settings.apiUrl());
        } catch (IOException | GeneralSecurityException | RuntimeException e) {
            LOG.log(Level.SEVERE, "SMTP submission could not start on " + settings.bindAddress() + ":"
                    + settings.port() + "; the queue runs on without it", e);
            stop();
        }
    }

    private SMTPServer build(SubmissionSettings settings) throws IOException, GeneralSecurityException {
        QueueApiClient api = new QueueApiClient(settings.apiUrl(), API_TIMEOUT);
        timers = new ScheduledThreadPoolExecutor(1, threads);
        timers.setRemoveOnCancelPolicy(true);
        SubmissionSessions open = new SubmissionSessions(settings.maxConnections(), settings.maxConnectionsPerAddress(),
                timers, settings.authDeadlineMillis(), settings.sessionDeadlineMillis(),
                metrics.counter("mailqueue.submission.connections.refused"));
        int accepted = settings.maxConnections() + REFUSAL_ROOM;
        sessions = new SessionPool(accepted + 10 + 1, threads); // SubEthaSMTP accepts maxConnections + 10 at once
        Runnable lockouts = metrics.counter("mailqueue.submission.auth.lockouts");
        AddressLockout lockout = new AddressLockout(settings.authFailuresPerAddress(), settings.authLockoutMillis(),
                settings.trackedAddresses(), System::currentTimeMillis, address -> {
                    lockouts.run();
                    LOG.warning(() -> "SMTP submission: " + settings.authFailuresPerAddress() + " failed logins from "
                            + address.getHostAddress() + "; its logins are refused for " + settings.authLockoutMillis()
                            + " ms (mailqueue.submission.auth-failures-per-address, auth-lockout.ms)");
                });
        SMTPServer.Builder builder = new SMTPServer.Builder()
                .port(settings.port())
                .bindAddress(InetAddress.getByName(settings.bindAddress()))
                .softwareName("mailqueue")
                .executorService(sessions)
                .sessionHandler(open)
                .messageHandlerFactory(context -> new SubmissionHandler(context, open, api,
                        settings.maxMessagesPerConnection(), settings.maxMessageBytes(), budget))
                .authenticationHandlerFactory(new SubmissionAuthentication(new EasyAuthenticationHandlerFactory(
                        new SubmissionLogin(api, open, settings.authOnLoopbackWithoutTls())), open, lockout,
                        settings.authOnLoopbackWithoutTls(), settings.maxAuthFailures(), settings.authLockoutDelayMillis()))
                .requireAuth()
                .maxConnections(accepted)
                .maxRecipients(settings.maxRecipients())
                .maxMessageSize(settings.maxMessageBytes())
                .connectionTimeoutMs(settings.idleTimeoutMillis())
                .insertReceivedHeaders(false); // SubmissionHandler writes it, after the idempotency key
        if (settings.keystore().isPresent()) {
            builder.enableTLS()
                    .startTlsSocketFactory(tls(settings))
                    .showAuthCapabilitiesBeforeSTARTTLS(settings.authOnLoopbackWithoutTls())
                    .requireTLS(!settings.authOnLoopbackWithoutTls());
        }
        return builder.build();
    }

    /** @return a TLS context with the key store's key, for STARTTLS */
    private static SSLContext tls(SubmissionSettings settings) throws IOException, GeneralSecurityException {
        KeyStore keys = KeyStore.getInstance(settings.keystoreType());
        char[] password = settings.keystorePassword().toCharArray();
        try (InputStream in = Files.newInputStream(Path.of(settings.keystore().get()))) {
            keys.load(in, password);
        }
        KeyManagerFactory managers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        managers.init(keys, password);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(managers.getKeyManagers(), null, null);
        return context;
    }

    @PreDestroy
    void stop() {
        if (server != null) {
            server.stop();
            server = null;
        }
        if (sessions != null) {
            sessions.shutdownNow();
            sessions = null;
        }
        if (timers != null) {
            timers.shutdownNow();
            timers = null;
        }
    }
}
