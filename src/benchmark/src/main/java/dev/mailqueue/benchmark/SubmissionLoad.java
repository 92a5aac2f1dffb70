package dev.mailqueue.benchmark;

import jakarta.mail.Message;
import jakarta.mail.Session;
import jakarta.mail.Transport;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The load test of SMTP submission (issue 30): the same 1 KB message queued N times over C connections, first
 * through the SMTP listener (Angus Mail's SMTP client, one connection per thread, AUTH PLAIN, each message a
 * mail transaction answered 250 once queued), then through {@code POST /api/mails} as {@code message/rfc822}
 * (one HTTP/1.1 client per thread), in one run against one server whose dispatch is paused, so that each phase
 * measures intake alone. Prints messages per second and the CPU per message of the machine, Liberty and PostgreSQL
 * ({@link CpuClock}), and the ratios SMTP : REST.
 *
 * <p>Arguments: {@code messages connections smtpPort httpBase libertyPid user password}.
 */
public final class SubmissionLoad {

    private SubmissionLoad() {
    }

    /** One phase's figures. */
    private record Phase(String name, int messages, double seconds, CpuClock.Reading cpu) {

        String line() {
            return String.format("%-5s %6d messages in %6.2f s: %7.1f /s; CPU per message: machine %.3f ms, Liberty %.3f ms,"
                            + " PostgreSQL %.3f ms", name, messages, seconds, messages / seconds,
                    ms(cpu.machine() == null ? -1 : cpu.machine().busySeconds()), ms(cpu.liberty()), ms(cpu.postgres()));
        }

        double ms(double secondsOfCpu) {
            return secondsOfCpu < 0 ? -1 : secondsOfCpu * 1000 / messages;
        }
    }

    public static void main(String[] args) throws Exception {
        int messages = Integer.parseInt(args[0]);
        int connections = Integer.parseInt(args[1]);
        int smtpPort = Integer.parseInt(args[2]);
        String base = args[3];
        long libertyPid = Long.parseLong(args[4]);
        String user = args[5];
        String password = args[6];
        byte[] message = message();
        List<Phase> phases = new ArrayList<>();
        for (int round = 1; round <= 2; round++) {
            phases.add(run("smtp", messages, connections, libertyPid, (c, n) -> smtp(smtpPort, user, password, message, c, n)));
            phases.add(run("rest", messages, connections, libertyPid, (c, n) -> rest(base, user, password, message, c, n)));
        }
        System.out.println("submission load: " + messages + " messages of " + message.length + " bytes per phase over "
                + connections + " connections, dispatch paused");
        for (Phase phase : phases) {
            System.out.println("  " + phase.line());
        }
        for (int i = 0; i + 1 < phases.size(); i += 2) {
            Phase smtp = phases.get(i);
            Phase rest = phases.get(i + 1);
            System.out.printf("  round %d: SMTP/REST throughput %.2f, machine CPU per message %.2f, Liberty %.2f%n", i / 2 + 1,
                    (smtp.messages() / smtp.seconds()) / (rest.messages() / rest.seconds()),
                    smtp.ms(smtp.cpu().machine().busySeconds()) / rest.ms(rest.cpu().machine().busySeconds()),
                    smtp.ms(smtp.cpu().liberty()) / rest.ms(rest.cpu().liberty()));
        }
    }

    /** Sends one connection's share. */
    @FunctionalInterface
    private interface Sender {
        /** @return how many it sent */
        int send(int connection, int share) throws Exception;
    }

    private static Phase run(String name, int messages, int connections, long libertyPid, Sender sender) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(connections);
        CpuClock.Reading before = CpuClock.Reading.now(libertyPid, 0);
        long start = System.nanoTime();
        List<Future<Integer>> done = new ArrayList<>();
        for (int c = 0; c < connections; c++) {
            int share = messages / connections + (c < messages % connections ? 1 : 0);
            int connection = c;
            done.add(pool.submit(() -> sender.send(connection, share) == share ? share : -1));
        }
        int sent = 0;
        for (Future<Integer> f : done) {
            int n = f.get();
            if (n < 0) {
                throw new IllegalStateException(name + ": a connection did not send its share");
            }
            sent += n;
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        CpuClock.Reading cpu = CpuClock.Reading.now(libertyPid, 0).since(before);
        pool.shutdown();
        return new Phase(name, sent, seconds, cpu);
    }

    /** One connection's share over SMTP: connect, AUTH, then one mail transaction after the other. */
    private static int smtp(int port, String user, String password, byte[] message, int connection, int share)
            throws Exception {
        Properties properties = new Properties();
        properties.setProperty("mail.smtp.auth", "true");
        Session session = Session.getInstance(properties);
        try (Transport transport = session.getTransport("smtp")) {
            transport.connect("127.0.0.1", port, user, password);
            for (int i = 0; i < share; i++) {
                MimeMessage mime = new MimeMessage(session, new ByteArrayInputStream(message));
                mime.setHeader("Message-ID", "<load-smtp-" + System.nanoTime() + "-" + connection + "-" + i
                        + "@mailqueue.test>");
                transport.sendMessage(mime, new InternetAddress[]{new InternetAddress("load-" + i + "@load.example")});
            }
        }
        return share;
    }

    /** One connection's share over REST: one POST after the other on one HTTP/1.1 client. */
    private static int rest(String base, String user, String password, byte[] message, int connection, int share)
            throws Exception {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        String auth = "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
        String text = new String(message, StandardCharsets.ISO_8859_1);
        for (int i = 0; i < share; i++) {
            byte[] body = text.replace("<load@mailqueue.test>", "<load-rest-" + System.nanoTime() + "-" + connection
                    + "-" + i + "@mailqueue.test>").getBytes(StandardCharsets.ISO_8859_1);
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(base + "/api/mails?to=load-" + i
                                    + "%40load.example"))
                            .header("Authorization", auth).header("Content-Type", "message/rfc822")
                            .timeout(Duration.ofSeconds(60)).POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 202) {
                throw new IllegalStateException("POST answered " + response.statusCode() + ": " + response.body());
            }
        }
        return share;
    }

    /** @return a 1 KB text message from the benchmark's sender */
    private static byte[] message() throws Exception {
        MimeMessage mime = new MimeMessage(Session.getInstance(new Properties()));
        mime.setFrom("load@mailqueue.test");
        mime.setRecipients(Message.RecipientType.TO, "load@load.example");
        mime.setSubject("Submission load");
        mime.setText("x".repeat(900));
        mime.setHeader("Message-ID", "<load@mailqueue.test>");
        mime.saveChanges();
        mime.setHeader("Message-ID", "<load@mailqueue.test>");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        mime.writeTo(out);
        return out.toByteArray();
    }
}
