package dev.mailqueue.submission.boundary;

import dev.mailqueue.settings.control.Settings;
import dev.mailqueue.submission.control.QueueApiClient;
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
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
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
 * recipients per message, message size and idle time ({@link SubmissionSettings}). Each message goes to the queue
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

    @Resource
    ManagedThreadFactory threads;

    private SMTPServer server;
    private ExecutorService sessions;

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
        SubmissionSessions open = new SubmissionSessions(settings.maxConnectionsPerAddress());
        sessions = new ThreadPoolExecutor(0, settings.maxConnections() + 1, 60, TimeUnit.SECONDS,
                new SynchronousQueue<>(), threads);
        SMTPServer.Builder builder = new SMTPServer.Builder()
                .port(settings.port())
                .bindAddress(InetAddress.getByName(settings.bindAddress()))
                .softwareName("mailqueue")
                .executorService(sessions)
                .sessionHandler(open)
                .messageHandlerFactory(context -> new SubmissionHandler(context, open, api,
                        settings.maxMessagesPerConnection(), settings.maxMessageBytes()))
                .authenticationHandlerFactory(new EasyAuthenticationHandlerFactory(
                        new SubmissionLogin(api, open, settings.authOnLoopbackWithoutTls())))
                .requireAuth()
                .maxConnections(settings.maxConnections())
                .maxRecipients(settings.maxRecipients())
                .maxMessageSize(settings.maxMessageBytes())
                .connectionTimeoutMs(settings.idleTimeoutMillis())
                .insertReceivedHeaders();
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
    }
}
