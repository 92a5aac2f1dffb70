package dev.mailqueue.it;

import org.subethamail.smtp.MessageContext;
import org.subethamail.smtp.MessageHandler;
import org.subethamail.smtp.RejectException;
import org.subethamail.smtp.server.SMTPServer;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An SMTP server (SubEthaSMTP) in this JVM that a test scripts to answer the way its case needs: refuse
 * a recipient's RCPT TO, or the DATA of a transaction that includes a recipient, with a given reply, a
 * given number of times or for ever. Records what it accepted (envelope sender, recipients, Message-ID,
 * arrival time) and every RCPT TO it was sent.
 */
final class ScriptedSmtpServer {

    /** One accepted transaction. */
    record Delivery(String envelopeSender, List<String> recipients, String messageId, String headers, Instant at) {
    }

    /** A scripted refusal: reply {@code code text}, {@code times} more times (negative: always). */
    private static final class Refusal {
        final int code;
        final String text;
        final AtomicInteger times;

        Refusal(int code, String text, int times) {
            this.code = code;
            this.text = text;
            this.times = new AtomicInteger(times);
        }

        /** @return true (and counts it) when this refusal still applies */
        boolean take() {
            return times.get() < 0 || times.getAndUpdate(n -> n > 0 ? n - 1 : n) > 0;
        }
    }

    private final int port;
    private final Map<String, Refusal> rcptRefusals = new ConcurrentHashMap<>();
    private final Map<String, Refusal> dataRefusals = new ConcurrentHashMap<>();
    private final List<Delivery> deliveries = new CopyOnWriteArrayList<>();
    private final List<String> rcpts = new CopyOnWriteArrayList<>();
    private SMTPServer server;

    ScriptedSmtpServer(int port) {
        this.port = port;
    }

    void start() {
        server = SMTPServer.port(port).hostName("scripted.test").messageHandlerFactory(Transaction::new).build();
        server.start();
    }

    void stop() {
        if (server != null) {
            server.stop();
            server = null;
        }
    }

    /** RCPT TO {@code address} is answered {@code code text}, {@code times} times (negative: always). */
    void refuseRecipient(String address, int code, String text, int times) {
        rcptRefusals.put(address.toLowerCase(Locale.ROOT), new Refusal(code, text, times));
    }

    /** The DATA of a transaction including {@code address} is answered {@code code text}, {@code times} times. */
    void refuseData(String address, int code, String text, int times) {
        dataRefusals.put(address.toLowerCase(Locale.ROOT), new Refusal(code, text, times));
    }

    /** @return every accepted transaction so far */
    List<Delivery> deliveries() {
        return List.copyOf(deliveries);
    }

    /** @return the accepted transactions that delivered to {@code address} */
    List<Delivery> deliveriesTo(String address) {
        return deliveries.stream().filter(d -> d.recipients().contains(address.toLowerCase(Locale.ROOT))).toList();
    }

    /** @return how many RCPT TO commands named {@code address}, accepted or not */
    long rcptCount(String address) {
        return rcpts.stream().filter(address.toLowerCase(Locale.ROOT)::equals).count();
    }

    /** One SMTP transaction: MAIL FROM, RCPT TOs, DATA. */
    private final class Transaction implements MessageHandler {
        private String sender;
        private final List<String> recipients = new ArrayList<>();

        Transaction(MessageContext context) {
        }

        @Override
        public void from(String from) {
            sender = from;
        }

        @Override
        public void recipient(String recipient) throws RejectException {
            String address = recipient.toLowerCase(Locale.ROOT);
            rcpts.add(address);
            Refusal refusal = rcptRefusals.get(address);
            if (refusal != null && refusal.take()) {
                throw new RejectException(refusal.code, refusal.text);
            }
            recipients.add(address);
        }

        @Override
        public String data(InputStream data) throws RejectException, IOException {
            String headers = readHeaders(data);
            for (String address : recipients) {
                Refusal refusal = dataRefusals.get(address);
                if (refusal != null && refusal.take()) {
                    throw new RejectException(refusal.code, refusal.text);
                }
            }
            deliveries.add(new Delivery(sender, List.copyOf(recipients), header(headers, "Message-ID"), headers,
                    Instant.now()));
            return null;
        }

        @Override
        public void done() {
        }
    }

    private static String readHeaders(InputStream data) throws IOException {
        StringBuilder headers = new StringBuilder();
        BufferedReader reader = new BufferedReader(new InputStreamReader(data, StandardCharsets.UTF_8));
        boolean inHeaders = true;
        for (String line = reader.readLine(); line != null; line = reader.readLine()) {
            if (line.isEmpty()) {
                inHeaders = false;
            }
            if (inHeaders) {
                headers.append(line).append('\n');
            }
        }
        return headers.toString();
    }

    /** @return the first value of header {@code name} (unfolded), or null */
    static String header(String headers, String name) {
        String unfolded = headers.replace("\n ", " ").replace("\n\t", " ");
        for (String line : unfolded.split("\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && line.substring(0, colon).equalsIgnoreCase(name)) {
                return line.substring(colon + 1).strip();
            }
        }
        return null;
    }
}
