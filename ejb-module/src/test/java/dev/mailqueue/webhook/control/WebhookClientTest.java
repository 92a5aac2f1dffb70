package dev.mailqueue.webhook.control;

import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SNIMatcher;
import javax.net.ssl.SNIServerName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.StandardConstants;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The webhook client against real local servers: a receiver that drips its answer or sends without end
 * costs one deadline or 64 KiB at most, a host that resolves to a private address is refused before any
 * connection, and the connection goes to the address the (checked) lookup answered, while TLS checks the
 * certificate against the URL's host name and sends that name in SNI and Host. A client without its
 * deadline would hang here: the class's timeout fails it instead.
 */
@Timeout(60)
class WebhookClientTest {

    static final long DEADLINE = 1_500;

    /** Scheduling and thread start-up on a busy machine; still far below what a missing deadline costs. */
    static final long SLACK = 2_000;

    ScheduledExecutorService timer;
    final List<AutoCloseable> closing = new ArrayList<>();

    @BeforeEach
    void start() {
        timer = Executors.newSingleThreadScheduledExecutor();
    }

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : closing) {
            c.close();
        }
        timer.shutdownNow();
    }

    WebhookClient cut(boolean allowPrivateAddresses, PinnedResolver.Lookup lookup) throws Exception {
        return cut(allowPrivateAddresses, lookup, SSLContext.getDefault());
    }

    WebhookClient cut(boolean allowPrivateAddresses, PinnedResolver.Lookup lookup, SSLContext tls) {
        WebhookClient client = new WebhookClient(DEADLINE, allowPrivateAddresses, timer, lookup, tls);
        closing.add(client);
        return client;
    }

    static WebhookClient.Result post(WebhookClient client, String url) {
        return client.post(URI.create(url), "evt_1", 1_700_000_000L, "v1,c2lnbmF0dXJl", "{\"type\":\"sent\"}");
    }

    /**
     * A receiver on a raw socket: reads one request, writes {@code head}, then {@code drip} one byte at a time
     * every 200 ms, or, with {@code flood}, bytes as fast as it can; notes when the client closed the connection
     * and how many bytes it got out.
     */
    final class ScriptedReceiver implements AutoCloseable {

        final ServerSocket socket;
        final AtomicLong closedAt = new AtomicLong();
        final AtomicLong written = new AtomicLong();
        final AtomicInteger connections = new AtomicInteger();

        ScriptedReceiver(String head, boolean flood) throws IOException {
            socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            closing.add(this);
            Thread thread = new Thread(() -> serve(head, flood), "scripted-receiver");
            thread.setDaemon(true);
            thread.start();
        }

        int port() {
            return socket.getLocalPort();
        }

        private void serve(String head, boolean flood) {
            try (Socket s = socket.accept()) {
                connections.incrementAndGet();
                readRequest(s.getInputStream());
                OutputStream out = s.getOutputStream();
                out.write(head.getBytes(StandardCharsets.US_ASCII));
                out.flush();
                byte[] chunk = new byte[8192];
                while (true) {
                    if (flood) {
                        out.write(chunk);
                        written.addAndGet(chunk.length);
                    } else {
                        out.write('x');
                        out.flush();
                        written.incrementAndGet();
                        Thread.sleep(200);
                    }
                }
            } catch (IOException | InterruptedException e) {
                closedAt.compareAndSet(0, System.nanoTime()); // the client closed it (a write to it failed)
            }
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    /** Reads a request head and its Content-Length body. */
    static void readRequest(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int c = in.read();
            if (c < 0) {
                throw new IOException("request ended early");
            }
            head.append((char) c);
        }
        String lower = head.toString().toLowerCase();
        int at = lower.indexOf("content-length:");
        int length = Integer.parseInt(lower.substring(at + 15, lower.indexOf('\r', at)).strip());
        in.readNBytes(length);
    }

    @Test
    void aReceiverThatDripsItsBodyIsCutOffAtTheDeadlineAndItsStatusStands() throws Exception {
        ScriptedReceiver receiver = new ScriptedReceiver("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n", false);
        long start = System.nanoTime();

        WebhookClient.Result result = post(cut(true, InetAddress::getAllByName), "http://127.0.0.1:" + receiver.port() + "/hooks");

        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(result.delivered()).as(result.error()).isTrue();
        assertThat(result.status()).isEqualTo(200);
        assertThat(tookMillis).as("the call ends at its deadline").isBetween(DEADLINE - 100, DEADLINE + SLACK);
        awaitClosed(receiver);
        assertThat(TimeUnit.NANOSECONDS.toMillis(receiver.closedAt.get() - start)).as("the receiver sees the connection closed")
                .isLessThan(DEADLINE + SLACK);
    }

    @Test
    void aReceiverThatNeverFinishesItsHeadersFailsAtTheDeadline() throws Exception {
        ScriptedReceiver receiver = new ScriptedReceiver("HTTP/1.1 200 OK\r\nX-Drip: ", false);
        long start = System.nanoTime();

        WebhookClient.Result result = post(cut(true, InetAddress::getAllByName), "http://127.0.0.1:" + receiver.port() + "/hooks");

        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(result.delivered()).isFalse();
        assertThat(result.status()).isNull();
        assertThat(result.error()).isEqualTo("no answer within " + DEADLINE + " ms");
        assertThat(tookMillis).isBetween(DEADLINE - 100, DEADLINE + SLACK);
        awaitClosed(receiver);
    }

    @Test
    void anEndlessBodyIsReadNoFurtherThanTheCap() throws Exception {
        ScriptedReceiver receiver = new ScriptedReceiver("HTTP/1.1 500 Oops\r\nConnection: close\r\n\r\n", true);
        long start = System.nanoTime();

        WebhookClient.Result result = post(cut(true, InetAddress::getAllByName), "http://127.0.0.1:" + receiver.port() + "/hooks");

        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(result.status()).as(result.error()).isEqualTo(500);
        assertThat(result.error()).isEqualTo("the receiver answered HTTP 500");
        assertThat(tookMillis).as("closed after 64 KiB, not at the deadline").isLessThan(DEADLINE / 2);
        awaitClosed(receiver);
        // What the receiver got out is what the two ends' socket buffers hold; without the cap, it would be
        // everything it could send until the deadline.
        assertThat(receiver.written.get()).isLessThan(64L * 1024 * 1024);
    }

    @Test
    void aHostThatResolvesToLoopbackIsRefusedBeforeAnyConnection() throws Exception {
        ScriptedReceiver receiver = new ScriptedReceiver("HTTP/1.1 204 No Content\r\n\r\n", false);

        WebhookClient.Result result = post(cut(false, InetAddress::getAllByName), "http://localhost:" + receiver.port() + "/hooks");

        assertThat(result.delivered()).isFalse();
        assertThat(result.status()).isNull();
        assertThat(result.error()).startsWith("not sent: host localhost resolves to ").contains("loopback", "not a public address");
        Thread.sleep(300);
        assertThat(receiver.connections.get()).as("no connection was made").isZero();
    }

    @Test
    void theConnectionGoesToTheAddressTheLookupAnsweredNotToALaterAnswerAndHostNamesTheUrlsHost() throws Exception {
        InetAddress checked = InetAddress.getByName("127.0.0.2");
        InetAddress rebound = InetAddress.getByName("127.0.0.1");
        List<String> hostsAtChecked = new CopyOnWriteArrayList<>();
        List<String> hostsAtRebound = new CopyOnWriteArrayList<>();
        HttpServer atChecked = HttpServer.create(new InetSocketAddress(checked, 0), 0);
        int port = atChecked.getAddress().getPort();
        HttpServer atRebound = HttpServer.create(new InetSocketAddress(rebound, port), 0);
        for (HttpServer server : List.of(atChecked, atRebound)) {
            List<String> hosts = server == atChecked ? hostsAtChecked : hostsAtRebound;
            server.createContext("/hooks", exchange -> {
                exchange.getRequestBody().readAllBytes();
                hosts.add(exchange.getRequestHeaders().getFirst("Host") + " " + exchange.getRequestHeaders().getFirst("webhook-id"));
                exchange.sendResponseHeaders(204, -1);
                exchange.close();
            });
            server.start();
            closing.add(() -> server.stop(0));
        }
        List<String> lookedUp = new CopyOnWriteArrayList<>();
        PinnedResolver.Lookup rebinding = host -> { // the first answer is checked; every later one differs
            lookedUp.add(host);
            return new InetAddress[] {lookedUp.size() == 1 ? checked : rebound};
        };

        WebhookClient.Result result = post(cut(true, rebinding), "http://hooks.test:" + port + "/hooks");

        assertThat(result.delivered()).as(result.error()).isTrue();
        assertThat(result.status()).isEqualTo(204);
        assertThat(lookedUp).containsExactly("hooks.test");
        assertThat(hostsAtChecked).containsExactly("hooks.test:" + port + " evt_1");
        assertThat(hostsAtRebound).isEmpty();

        WebhookClient.Result refused = post(cut(false, rebinding), "http://hooks.test:" + port + "/hooks");
        assertThat(refused.error()).startsWith("not sent: host hooks.test resolves to 127.0.0.1, which is not a public address");
        assertThat(hostsAtChecked).hasSize(1);
        assertThat(hostsAtRebound).isEmpty();
    }

    @Test
    void tlsChecksTheCertificateAgainstTheUrlsHostAndSendsItInSniAndHostWhileConnectingToThePinnedAddress(@TempDir Path dir)
            throws Exception {
        char[] password = "changeit".toCharArray();
        Path store = dir.resolve("hooks.p12");
        Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "hooks", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=hooks.test",
                "-ext", "SAN=dns:hooks.test", "-validity", "2", "-storetype", "PKCS12", "-keystore", store.toString(),
                "-storepass", "changeit", "-keypass", "changeit").redirectErrorStream(true).start();
        String output = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(keytool.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(keytool.exitValue()).as(output).isZero();
        KeyStore keys = KeyStore.getInstance("PKCS12");
        try (InputStream in = java.nio.file.Files.newInputStream(store)) {
            keys.load(in, password);
        }
        KeyManagerFactory keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keyManagers.init(keys, password);
        SSLContext serverTls = SSLContext.getInstance("TLS");
        serverTls.init(keyManagers.getKeyManagers(), null, null);
        KeyStore trusted = KeyStore.getInstance("PKCS12");
        trusted.load(null, null);
        trusted.setCertificateEntry("hooks", keys.getCertificate("hooks"));
        TrustManagerFactory trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trustManagers.init(trusted);
        SSLContext clientTls = SSLContext.getInstance("TLS");
        clientTls.init(null, trustManagers.getTrustManagers(), null);

        List<String> serverNames = new CopyOnWriteArrayList<>();
        List<String> hosts = new CopyOnWriteArrayList<>();
        HttpsServer server = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setHttpsConfigurator(new HttpsConfigurator(serverTls) {
            @Override
            public void configure(HttpsParameters parameters) {
                SSLParameters ssl = serverTls.getDefaultSSLParameters();
                ssl.setSNIMatchers(List.of(new SNIMatcher(StandardConstants.SNI_HOST_NAME) {
                    @Override
                    public boolean matches(SNIServerName name) {
                        serverNames.add(((SNIHostName) name).getAsciiName());
                        return true;
                    }
                }));
                parameters.setSSLParameters(ssl);
            }
        });
        server.createContext("/hooks", exchange -> {
            exchange.getRequestBody().readAllBytes();
            hosts.add(exchange.getRequestHeaders().getFirst("Host"));
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        server.start();
        closing.add(() -> server.stop(0));
        int port = server.getAddress().getPort();
        List<String> lookedUp = new CopyOnWriteArrayList<>();
        PinnedResolver.Lookup toLoopback = host -> {
            lookedUp.add(host);
            return new InetAddress[] {InetAddress.getLoopbackAddress()};
        };
        WebhookClient client = cut(true, toLoopback, clientTls);

        WebhookClient.Result result = post(client, "https://hooks.test:" + port + "/hooks");

        assertThat(result.delivered()).as(result.error()).isTrue();
        assertThat(serverNames).containsExactly("hooks.test");
        assertThat(hosts).containsExactly("hooks.test:" + port);
        assertThat(lookedUp).containsExactly("hooks.test");

        WebhookClient.Result wrongName = post(client, "https://other.test:" + port + "/hooks");

        assertThat(wrongName.delivered()).isFalse();
        assertThat(wrongName.status()).isNull();
        assertThat(wrongName.error()).startsWith("no answer: SSL").contains("other.test");
        assertThat(hosts).as("nothing was sent to a server whose certificate is for another name").hasSize(1);
        assertThat(lookedUp).containsExactly("hooks.test", "other.test");
    }

    static void awaitClosed(ScriptedReceiver receiver) throws InterruptedException {
        long until = System.nanoTime() + Duration.ofMillis(DEADLINE + SLACK).toNanos();
        while (receiver.closedAt.get() == 0 && System.nanoTime() < until) {
            Thread.sleep(20);
        }
        assertThat(receiver.closedAt.get()).as("the receiver saw the connection closed").isNotZero();
    }
}
