package dev.mailqueue.benchmark;

import jakarta.mail.MessagingException;
import jakarta.mail.Session;
import jakarta.mail.Transport;
import jakarta.mail.internet.MimeMessage;

import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The ceiling the queue is measured against: plain Jakarta Mail (Angus Mail) sending the benchmark's
 * mail into the same SMTP server over {@code connections} reused connections, one thread each, each
 * composing and sending its share of the mails one after the other, as a claimer does, with nothing
 * stored anywhere. SMTP settings as the queue's {@code <mailSession>}: no authentication, no STARTTLS,
 * 30 s timeouts.
 */
public final class RawSmtpBaseline {

    private final Session session;
    private final int connections;

    /**
     * @param host        SMTP host
     * @param port        SMTP port
     * @param connections SMTP connections, one thread each
     */
    public RawSmtpBaseline(String host, int port, int connections) {
        Properties props = new Properties();
        props.setProperty("mail.transport.protocol", "smtp");
        props.setProperty("mail.smtp.host", host);
        props.setProperty("mail.smtp.port", Integer.toString(port));
        props.setProperty("mail.smtp.auth", "false");
        props.setProperty("mail.smtp.starttls.enable", "false");
        props.setProperty("mail.smtp.connectiontimeout", "30000");
        props.setProperty("mail.smtp.timeout", "30000");
        props.setProperty("mail.smtp.writetimeout", "30000");
        this.session = Session.getInstance(props);
        this.connections = connections;
    }

    /**
     * Sends {@code mails} messages, split as evenly as possible over the connections; the clock runs
     * from the start of the first connect to the end of the last send (connections are opened in
     * parallel, each once).
     *
     * @param mails how many to send
     * @return mails per second
     * @throws MessagingException   when a connect or send fails
     * @throws InterruptedException when interrupted while waiting for the senders
     */
    public double mailsPerSecond(int mails) throws MessagingException, InterruptedException {
        ExecutorService pool = Executors.newFixedThreadPool(connections);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<Void>> senders = new ArrayList<>();
            for (int c = 0; c < connections; c++) {
                int first = c * mails / connections;
                int end = (c + 1) * mails / connections;
                senders.add(pool.submit(() -> {
                    go.await();
                    send(first, end);
                    return null;
                }));
            }
            long start = System.nanoTime();
            go.countDown();
            for (Future<Void> sender : senders) {
                await(sender);
            }
            return mails / ((System.nanoTime() - start) / 1e9);
        } finally {
            pool.shutdownNow();
        }
    }

    private void send(int first, int end) throws MessagingException {
        try (Transport transport = session.getTransport()) {
            transport.connect();
            for (int i = first; i < end; i++) {
                MimeMessage message = TestMail.mime(session, i);
                transport.sendMessage(message, message.getAllRecipients());
            }
        }
    }

    private static void await(Future<Void> sender) throws MessagingException, InterruptedException {
        try {
            sender.get();
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof MessagingException m) {
                throw m;
            }
            throw new MessagingException("raw send failed",
                    e.getCause() instanceof Exception cause ? cause : new IllegalStateException(e.getCause()));
        }
    }
}
