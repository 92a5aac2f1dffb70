package dev.mailqueue.it;

import jakarta.mail.MessagingException;
import jakarta.mail.Session;
import jakarta.mail.internet.MimeMessage;
import org.subethamail.smtp.MessageContext;
import org.subethamail.smtp.MessageHandler;
import org.subethamail.smtp.RejectException;
import org.subethamail.smtp.server.SMTPServer;

import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A real SMTP server in the test JVM (SubEthaSMTP) that tests can script: it records every message
 * that arrives with its envelope (MAIL FROM, RCPT TO), Message-ID and arrival time, and can be told
 * to refuse the next N mail transactions at MAIL FROM, RCPT TO or the end of DATA with a given reply
 * (e.g. 421 4.7.0, 450, 550), or to refuse one recipient's RCPT TO, or the DATA of transactions that
 * include a recipient, a given number of times, or to answer the end of DATA late (always, or the first
 * time for some messages). Arrival time is taken when the message data has been read, before the
 * server's 250 reply: a message answered late counts as arrived.
 */
final class ScriptedSmtpServer implements AutoCloseable {

    /** Where a scripted refusal is given: in reply to MAIL FROM, to every RCPT TO, or to the end of DATA. */
    enum Stage { MAIL_FROM, RCPT_TO, DATA }

    /**
     * One accepted message.
     *
     * @param envelopeSender the MAIL FROM address (the Return-Path it gets)
     * @param recipients     the RCPT TO addresses
     * @param messageId      its Message-ID header
     * @param subject        its Subject header
     * @param at             when its data had arrived
     */
    record Arrival(String envelopeSender, List<String> recipients, String messageId, String subject, Instant at) {
    }

    /**
     * One refused mail transaction.
     *
     * @param envelopeSender the MAIL FROM address of the refused transaction
     * @param stage          the command refused
     * @param reply          the reply sent, e.g. {@code 421 4.7.0 slow down}
     * @param at             when
     */
    record Refusal(String envelopeSender, Stage stage, String reply, Instant at) {
    }

    /** A per-recipient refusal: reply {@code code text}, {@code times} more times (negative: always). */
    private record AddressRefusal(int code, String text, AtomicInteger times) {

        /** @return true (and counts it) when this refusal still applies */
        boolean take() {
            return times.get() < 0 || times.getAndUpdate(n -> n > 0 ? n - 1 : n) > 0;
        }
    }

    private final Map<String, AddressRefusal> rcptRefusals = new ConcurrentHashMap<>();
    private final Map<String, AddressRefusal> dataRefusals = new ConcurrentHashMap<>();
    private final List<String> rcpts = new CopyOnWriteArrayList<>();
    private final SMTPServer server;
    private final List<Arrival> arrivals = new CopyOnWriteArrayList<>();
    private final List<Refusal> refusals = new CopyOnWriteArrayList<>();
    private volatile long dataDelayMillis;
    private volatile String lateMarker;
    private volatile long lateMillis;
    private final java.util.Set<String> answeredLate = ConcurrentHashMap.newKeySet();
    private final AtomicInteger holdLeft = new AtomicInteger();
    private volatile java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(0);
    private final List<String> held = new CopyOnWriteArrayList<>();
    private final AtomicInteger holding = new AtomicInteger();
    private int refuseLeft;
    private Stage refuseStage = Stage.MAIL_FROM;
    private int refuseCode;
    private String refuseText;

    private ScriptedSmtpServer(int port) {
        server = SMTPServer.port(port).bindAddress(java.net.InetAddress.getLoopbackAddress())
                .messageHandlerFactory(this::handler).build();
    }

    /** @return a started server on 127.0.0.1:{@code port} */
    static ScriptedSmtpServer start(int port) {
        ScriptedSmtpServer s = new ScriptedSmtpServer(port);
        // A port a test has just given up may still be held for a moment by the listener it closed.
        long giveUpAt = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(15);
        while (true) {
            try {
                s.server.start();
                return s;
            } catch (RuntimeException e) {
                if (!(e.getCause() instanceof java.net.BindException) || System.nanoTime() > giveUpAt) {
                    throw new IllegalStateException("cannot listen on 127.0.0.1:" + port, e);
                }
                s = new ScriptedSmtpServer(port);
                try {
                    Thread.sleep(250);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    /** The next {@code count} mail transactions get {@code code text} in reply to MAIL FROM. */
    void refuseNext(int count, int code, String text) {
        refuseNext(count, Stage.MAIL_FROM, code, text);
    }

    /**
     * The next {@code count} mail transactions get {@code code text} at {@code stage} (at RCPT TO:
     * to each recipient of the transaction; the transaction counts once).
     */
    synchronized void refuseNext(int count, Stage stage, int code, String text) {
        refuseLeft = count;
        refuseStage = stage;
        refuseCode = code;
        refuseText = text;
    }

    /** RCPT TO {@code address} is answered {@code code text}, {@code times} times (negative: always). */
    void refuseRecipient(String address, int code, String text, int times) {
        rcptRefusals.put(address.toLowerCase(Locale.ROOT), new AddressRefusal(code, text, new AtomicInteger(times)));
    }

    /** The DATA of a transaction including {@code address} is answered {@code code text}, {@code times} times. */
    void refuseData(String address, int code, String text, int times) {
        dataRefusals.put(address.toLowerCase(Locale.ROOT), new AddressRefusal(code, text, new AtomicInteger(times)));
    }

    /** Every end of DATA is answered only after {@code delay}: a slow relay. */
    void delayData(java.time.Duration delay) {
        dataDelayMillis = delay.toMillis();
    }

    /**
     * The first end of DATA of each message whose Subject contains {@code marker} is answered only after
     * {@code delay} (the message is kept, as a server that is slow to say so would); later ones at once.
     */
    void answerLateOnce(String marker, java.time.Duration delay) {
        lateMarker = marker;
        lateMillis = delay.toMillis();
    }

    /**
     * The next {@code count} ends of DATA are held: the message is kept (an arrival) and the reply to its final dot
     * waits until {@link #releaseHeld()} (60 s at most). The client then has a send in flight whose outcome it does
     * not know: the window in which a fault leaves a mail in doubt, held open for as long as the test needs.
     */
    void holdNext(int count) {
        release = new java.util.concurrent.CountDownLatch(1);
        holdLeft.set(count);
    }

    /**
     * Holds the next {@code count} ends of DATA ({@link #holdNext(int)}) and returns once one of them is held, so that
     * a fault struck on return finds a send in flight.
     *
     * @return how many Message-IDs were held before this call: {@link #held()} from that index on are this call's
     * @throws org.awaitility.core.ConditionTimeoutException when no send reaches its end of DATA within 10 s
     */
    int holdUntilInFlight(int count) {
        int before = held.size();
        holdNext(count);
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
                .pollInterval(java.time.Duration.ofMillis(5)).until(() -> holding.get() > 0);
        return before;
    }

    /** Answers every held end of DATA (over connections that may be gone by then) and holds no more. */
    void releaseHeld() {
        holdLeft.set(0);
        release.countDown();
    }

    /** @return the Message-IDs whose end of DATA was held, in order, whether still held or released */
    List<String> held() {
        return List.copyOf(held);
    }

    /** @return how many ends of DATA are held right now */
    int holding() {
        return holding.get();
    }

    /** @return the accepted messages that were delivered to {@code address} */
    List<Arrival> arrivalsFor(String address) {
        return arrivals.stream()
                .filter(a -> a.recipients().stream().anyMatch(r -> r.equalsIgnoreCase(address)))
                .toList();
    }

    /** @return how many RCPT TO commands named {@code address}, accepted or not */
    long rcptCount(String address) {
        return rcpts.stream().filter(address::equalsIgnoreCase).count();
    }

    /** @return the messages accepted so far, in order of arrival */
    List<Arrival> arrivals() {
        return List.copyOf(arrivals);
    }

    /** @return the mail transactions refused so far */
    List<Refusal> refusals() {
        return List.copyOf(refusals);
    }

    /** Forgets what arrived and was refused, and any refusals still scripted. */
    synchronized void reset() {
        arrivals.clear();
        refusals.clear();
        rcpts.clear();
        rcptRefusals.clear();
        dataRefusals.clear();
        refuseLeft = 0;
        dataDelayMillis = 0;
        lateMarker = null;
        answeredLate.clear();
        releaseHeld();
        held.clear();
    }

    @Override
    public void close() {
        releaseHeld();
        server.stop();
    }

    /** @return the scripted refusal for this stage of the transaction, or null to go on normally */
    private synchronized RejectException refusal(String from, Stage stage, boolean record) {
        if (refuseLeft <= 0 || refuseStage != stage) {
            return null;
        }
        refuseLeft--;
        RejectException e = new RejectException(refuseCode, refuseText);
        if (record) {
            refusals.add(new Refusal(from, stage, e.getErrorResponse(), Instant.now()));
        }
        return e;
    }

    private MessageHandler handler(MessageContext context) {
        return new MessageHandler() {
            private String from;
            private final List<String> recipients = new ArrayList<>();
            private RejectException refusedAtRcpt; // this transaction's RCPT refusal, repeated for each recipient

            @Override
            public void from(String address) throws RejectException {
                RejectException refused = refusal(address, Stage.MAIL_FROM, true);
                if (refused != null) {
                    throw refused;
                }
                from = address;
            }

            @Override
            public void recipient(String address) throws RejectException {
                rcpts.add(address);
                AddressRefusal scripted = rcptRefusals.get(address.toLowerCase(Locale.ROOT));
                if (scripted != null && scripted.take()) {
                    throw new RejectException(scripted.code(), scripted.text());
                }
                if (refusedAtRcpt == null) {
                    refusedAtRcpt = refusal(from, Stage.RCPT_TO, false);
                }
                if (refusedAtRcpt != null) {
                    refusals.add(new Refusal(from, Stage.RCPT_TO, refusedAtRcpt.getErrorResponse(), Instant.now()));
                    throw new RejectException(refusedAtRcpt.getCode(), refusedAtRcpt.getMessage());
                }
                recipients.add(address);
            }

            @Override
            public String data(InputStream data) throws IOException, RejectException {
                MimeMessage message;
                try {
                    message = new MimeMessage(Session.getInstance(new Properties()), data);
                } catch (MessagingException e) {
                    throw new IOException(e);
                }
                RejectException refused = refusal(from, Stage.DATA, true);
                if (refused != null) {
                    throw refused;
                }
                for (String recipient : recipients) {
                    AddressRefusal scripted = dataRefusals.get(recipient.toLowerCase(Locale.ROOT));
                    if (scripted != null && scripted.take()) {
                        throw new RejectException(scripted.code(), scripted.text());
                    }
                }
                try {
                    arrivals.add(new Arrival(from, List.copyOf(recipients), message.getMessageID(),
                            message.getSubject(), Instant.now()));
                    long pause = dataDelayMillis;
                    String marker = lateMarker;
                    if (marker != null && message.getSubject() != null && message.getSubject().contains(marker)
                            && answeredLate.add(message.getMessageID())) {
                        pause = Math.max(pause, lateMillis);
                    }
                    if (pause > 0) {
                        Thread.sleep(pause);
                    }
                    if (holdLeft.getAndUpdate(n -> n > 0 ? n - 1 : n) > 0) {
                        java.util.concurrent.CountDownLatch latch = release; // set before holdLeft was
                        held.add(message.getMessageID());
                        holding.incrementAndGet();
                        try {
                            latch.await(60, java.util.concurrent.TimeUnit.SECONDS);
                        } finally {
                            holding.decrementAndGet();
                        }
                    }
                } catch (MessagingException e) {
                    throw new IOException(e);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return null;
            }

            @Override
            public void done() {
            }
        };
    }
}
