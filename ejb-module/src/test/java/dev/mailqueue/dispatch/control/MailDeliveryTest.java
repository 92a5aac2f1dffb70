package dev.mailqueue.dispatch.control;

import com.icegreen.greenmail.junit5.GreenMailExtension;
import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.ServerSetup;
import com.icegreen.greenmail.util.ServerSetupTest;
import dev.mailqueue.account.control.AccountHealth;
import dev.mailqueue.account.control.Account;
import dev.mailqueue.account.control.AccountSettings;
import dev.mailqueue.account.control.AccountThrottle;
import dev.mailqueue.account.control.Accounts;
import dev.mailqueue.queue.entity.RecipientStatus;
import dev.mailqueue.queue.control.AddressNames;
import dev.mailqueue.queue.control.AttemptResult;
import dev.mailqueue.queue.control.Change;
import dev.mailqueue.queue.control.ClaimedMail;
import dev.mailqueue.queue.control.Verdict;
import dev.mailqueue.settings.control.QueueSettingsTest;
import jakarta.mail.Session;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.subethamail.smtp.MessageHandler;
import org.subethamail.smtp.server.SMTPServer;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * One mail's delivery against real SMTP peers: GreenMail, a port where nothing listens, a server that
 * accepts the connection and never greets, and a SubEthaSMTP server that answers the end of DATA late.
 * Accounts have no rate limits here, so no database is involved; the claimer's gate is done
 * at once, or never.
 */
class MailDeliveryTest {

    static final Instant CREATED = Instant.parse("2030-03-14T09:26:53Z");

    @RegisterExtension
    final GreenMailExtension greenMail = new GreenMailExtension(ServerSetupTest.SMTP.dynamicPort());

    final Map<String, Session> sessions = new HashMap<>();
    final List<MailDelivery> deliveries = new ArrayList<>();
    AccountHealth health;
    int deadPort;

    @BeforeEach
    void accounts() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            deadPort = socket.getLocalPort();
        }
        sessions.put("primary", session(deadPort, null));
        sessions.put("backup", session(greenMail.getSmtp().getPort(), "bounces@backup.example"));
        sessions.put("lonely", session(deadPort, null));
        sessions.put("verp", session(greenMail.getSmtp().getPort(), null));
        health = AccountHealth.of(QueueSettingsTest.defaults("mailqueue.smtp.cool-down.ms", "60000"));
    }

    @AfterEach
    void close() {
        deliveries.forEach(MailDelivery::close);
    }

    MailDelivery cut() {
        return cut(dev.mailqueue.settings.control.DeliveryMode.LIVE, null);
    }

    MailDelivery cut(dev.mailqueue.settings.control.DeliveryMode mode, String redirectTo) {
        Map<String, String> settings = Map.of("mailqueue.accounts", "primary,backup,lonely,verp",
                "mailqueue.account.primary.failover", "backup",
                "mailqueue.account.verp.bounce-address", "bounces@verp.example",
                AccountSettings.VERP_SECRET, VERP_SECRET);
        java.util.function.Function<String, Optional<String>> setting = name -> Optional.ofNullable(settings.get(name));
        List<Account> parsed = AccountSettings.parse(setting);
        Accounts accounts = Accounts.of(parsed, AccountSettings.verpToken(setting, parsed));
        Verdicts verdicts = new Verdicts(new dev.mailqueue.queue.control.Lease(1, "host/server#1"), "host/server");
        SmtpConnections pool = SmtpConnections.of(a -> sessions.get(a.name()));
        MailDelivery delivery = new MailDelivery(
                new MailComposer(sessions.get("backup"), id -> new ClaimedMail.Body("body", null), (id, seq) -> new byte[0],
                        MailComposer.NO_LIST_FIELDS, DkimSigning.NONE),
                new RecipientPlan.Policy(mode, redirectTo, 5),
                new AccountFailover(new AccountParts(accounts, health, new SendPermits(new AccountThrottle()), pool::borrow,
                        pool::giveBack, (elapsed, ok) -> { }, 500, verdicts)),
                verdicts);
        deliveries.add(delivery);
        return delivery;
    }

    static ClaimedMail mail(long id, String subject, String account) {
        return new ClaimedMail(id, "<" + id + "." + subject + "@example.com>", CREATED, 5, null, "alice@example.com",
                "Alice", null, List.of("bob@example.com"), List.of(), List.of(), subject, account, Map.of(), List.of(),
                List.of(), new ClaimedMail.Body("Hello", null));
    }

    static final SendMarks DONE = (id, at) -> GroupCommit.Ticket.DONE;

    static final String VERP_SECRET = "mail-delivery-test-verp-secret-0123456789";

    @Test
    void aVerpAccountSendsEachMailWithItsOwnEnvelopeSenderAndTheAuthorsFromHeader() throws Exception {
        cut().deliver(mail(3_000_000_001L, "verp", "verp"), DONE);

        String token = new dev.mailqueue.address.control.VerpToken(VERP_SECRET).of(3_000_000_001L, 0);
        assertThat(greenMail.getReceivedMessages()).singleElement().satisfies(m -> {
            assertThat(m.getHeader("Return-Path")).as("MAIL FROM").containsExactly("<bounces+" + token + "@verp.example>");
            assertThat(m.getHeader("From")).containsExactly("Alice <alice@example.com>");
        });
    }

    /**
     * Per-recipient VERP: a mail of a VERP account to three recipients goes out as three SMTP transactions, each
     * with MAIL FROM naming its own recipient's position, so that a report can only be about the recipient whose
     * copy it returns; the content is the same, Bcc is in no header, and every recipient is SENT.
     */
    @Test
    void aVerpAccountSendsEachRecipientItsOwnTransactionWithItsOwnEnvelopeSender() throws Exception {
        for (String user : new String[]{"bob@example.com", "carol@example.com", "dave@example.com"}) {
            greenMail.setUser(user, user);
        }
        ClaimedMail mail = new ClaimedMail(77, "<77.verp@example.com>", CREATED, 5, null, "alice@example.com", "Alice",
                null, List.of("bob@example.com", "carol@example.com"), List.of(), List.of("dave@example.com"), "verp",
                "verp", Map.of(), List.of(), List.of(), new ClaimedMail.Body("Hello", null));

        Change change = cut().deliver(mail, DONE);

        dev.mailqueue.address.control.VerpToken tokens = new dev.mailqueue.address.control.VerpToken(VERP_SECRET);
        assertThat(greenMail.getReceivedMessages()).hasSize(3);
        for (String[] expected : new String[][]{{"bob@example.com", "0"}, {"carol@example.com", "1"}, {"dave@example.com", "2"}}) {
            List<com.icegreen.greenmail.store.StoredMessage> copies = greenMail.getManagers().getImapHostManager()
                    .getInbox(greenMail.getUserManager().getUserByEmail(expected[0])).getMessages();
            assertThat(copies).as(expected[0]).hasSize(1);
            jakarta.mail.internet.MimeMessage copy = copies.get(0).getMimeMessage();
            assertThat(copy.getHeader("Return-Path")).as("MAIL FROM of " + expected[0]).containsExactly(
                    "<bounces+" + tokens.of(77, Integer.parseInt(expected[1])) + "@verp.example>");
            assertThat(copy.getHeader("Bcc")).isNull();
            assertThat(copy.getMessageID()).isEqualTo("<77.verp@example.com>");
        }
        AttemptResult result = ((Change.Attempted) change).result();
        assertThat(result.verdict()).isEqualTo(Verdict.SENT);
        assertThat(result.recipients()).extracting(r -> r.address() + " " + r.status())
                .containsExactly("bob@example.com SENT", "carol@example.com SENT", "dave@example.com SENT");
    }

    static ClaimedMail internationalMail(long id, String account) {
        return new ClaimedMail(id, "<" + id + ".utf8@example.com>", CREATED, 5, null, "alice@example.com", "Alice", null,
                List.of("josé@example.test", "bob@example.com"), List.of(), List.of(), "Olá", account, Map.of(), List.of(),
                List.of(), new ClaimedMail.Body("Hello", null), AddressNames.of(null, List.of("José Ñandú", "Bob"), List.of(), List.of()));
    }

    /** RFC 6531 §3.2: a session without mail.mime.allowutf8 never asks for SMTPUTF8 (GreenMail offers it), so josé
     *  fails alone, for good; Bob gets the mail, headers ASCII. */
    @Test
    void anSmtpUtf8RecipientFailsAloneWhereTheServerDoesNotOfferIt() throws Exception {
        Change change = cut().deliver(internationalMail(40, "backup"), DONE);

        assertThat(change).isInstanceOfSatisfying(Change.Attempted.class, a -> {
            assertThat(a.result().verdict()).isEqualTo(Verdict.SENT);
            assertThat(a.result().recipients()).anySatisfy(r -> {
                assertThat(r.address()).isEqualTo("josé@example.test");
                assertThat(r.status()).isEqualTo(RecipientStatus.REFUSED);
                assertThat(r.enhancedStatus()).isEqualTo("5.6.7");
                assertThat(r.replyText()).contains("SMTPUTF8", "RFC 6531 3.2");
            }).anySatisfy(r -> {
                assertThat(r.address()).isEqualTo("bob@example.com");
                assertThat(r.status()).isEqualTo(RecipientStatus.SENT);
            });
            assertThat(a.result().error()).contains("josé@example.test refused", "RFC 6531 3.2");
        });
        assertThat(greenMail.getReceivedMessages()).singleElement().satisfies(m -> {
            assertThat(m.getAllRecipients()).extracting(Object::toString).contains("Bob <bob@example.com>");
            String to = jakarta.mail.internet.MimeUtility.unfold(m.getHeader("To", ","));
            assertThat(to).isASCII().contains(":;").contains("Bob <bob@example.com>");
            assertThat(jakarta.mail.internet.MimeUtility.decodeText(to.substring(0, to.indexOf(":;"))))
                    .isEqualTo("\"José Ñandú\" <josé@example.test>");
        });
    }

    /** Nobody left to send to, or an author whose address needs SMTPUTF8: nothing goes out, for good. */
    @Test
    void withoutSmtpUtf8AMailOnlyToSuchAddressesOrFromOneFailsForGood() throws Exception {
        ClaimedMail onlyJose = new ClaimedMail(42, "<42.utf8@example.com>", CREATED, 5, null, "alice@example.com", null,
                null, List.of("josé@example.test"), List.of(), List.of(), "Olá", "backup", Map.of(), List.of(), List.of(),
                new ClaimedMail.Body("Hello", null));
        ClaimedMail fromJose = new ClaimedMail(43, "<43.utf8@example.com>", CREATED, 5, null, "josé@example.test", null,
                null, List.of("bob@example.com"), List.of(), List.of(), "Olá", "verp", Map.of(), List.of(), List.of(),
                new ClaimedMail.Body("Hello", null));

        assertThat(cut().deliver(onlyJose, DONE)).isInstanceOfSatisfying(Change.Attempted.class, a -> {
            assertThat(a.result().verdict()).isEqualTo(Verdict.PERMANENT);
            assertThat(a.result().recipients()).singleElement()
                    .satisfies(r -> assertThat(r.status()).isEqualTo(RecipientStatus.REFUSED));
        });
        assertThat(cut().deliver(fromJose, DONE)).isInstanceOfSatisfying(Change.Attempted.class, a -> {
            assertThat(a.result().verdict()).isEqualTo(Verdict.PERMANENT);
            assertThat(a.result().error()).contains("sender's address", "RFC 6531 3.2");
        });
        assertThat(greenMail.getReceivedMessages()).isEmpty();
    }

    /** A server that offers SMTPUTF8, with mail.mime.allowutf8 on the session: the address goes out in UTF-8. */
    @Test
    void anSmtpUtf8RecipientIsSentInUtf8WhereTheServerOffersIt() throws Exception {
        List<String> recipients = new ArrayList<>();
        List<byte[]> data = new ArrayList<>();
        SMTPServer utf8 = SMTPServer.port(0).bindAddress(InetAddress.getLoopbackAddress())
                .messageHandlerFactory(context -> new MessageHandler() {
                    @Override
                    public void from(String from) {
                    }

                    @Override
                    public void recipient(String recipient) {
                        recipients.add(recipient);
                    }

                    @Override
                    public String data(InputStream in) throws IOException {
                        data.add(in.readAllBytes());
                        return null;
                    }

                    @Override
                    public void done() {
                    }
                }).build();
        utf8.start();
        try {
            Session session = session(utf8.getPortAllocated(), null);
            session.getProperties().setProperty("mail.mime.allowutf8", "true");
            sessions.put("lonely", session);

            Change change = cut().deliver(internationalMail(41, "lonely"), DONE);

            assertThat(change).isInstanceOfSatisfying(Change.Attempted.class,
                    a -> assertThat(a.result().verdict()).isEqualTo(Verdict.SENT));
            assertThat(recipients).containsExactly("josé@example.test", "bob@example.com");
            String headers = new String(data.get(0), java.nio.charset.StandardCharsets.UTF_8);
            assertThat(headers).contains("=?UTF-8?Q?Jos=C3=A9_=C3=91and=C3=BA?= <josé@example.test>");
        } finally {
            utf8.stop();
        }
    }

    @Test
    void anUnreachableAccountFailsOverToTheNextWithItsEnvelopeSender() throws Exception {
        Change change = cut().deliver(mail(1, "failover", "primary"), DONE);

        assertThat(change).isInstanceOfSatisfying(Change.Attempted.class, a -> {
            assertThat(a.result().verdict()).isEqualTo(Verdict.SENT);
            assertThat(a.result().account()).isEqualTo("backup");
            assertThat(a.result().replyCode()).isEqualTo(250);
        });
        assertThat(greenMail.getReceivedMessages()).singleElement().satisfies(m -> {
            assertThat(m.getSubject()).isEqualTo("failover");
            assertThat(m.getHeader("Return-Path")).containsExactly("<bounces@backup.example>");
        });
        assertThat(health.down()).containsOnlyKeys("primary");
    }

    @Test
    void anUnreachableAccountHandsTheMailBackWithItsAttemptsUntouchedUntilTheCoolDownEnds() throws Exception {
        Change change = cut().deliver(mail(2, "stuck", "lonely"), DONE);

        assertThat(change).isInstanceOfSatisfying(Change.HandedBack.class, h -> {
            assertThat(h.note()).contains("account unreachable", "lonely", "onnect", "attempts untouched");
            assertThat(h.dueAt()).isAfter(Instant.now().plusSeconds(50));
        });
        assertThat(health.down()).containsOnlyKeys("lonely");
    }

    @Test
    void whenEveryAccountIsUnreachableTheNoteNamesThemAll() throws Exception {
        sessions.put("backup", session(deadPort, null));
        Change change = cut().deliver(mail(3, "nowhere", "primary"), DONE);
        assertThat(change).isInstanceOfSatisfying(Change.HandedBack.class,
                h -> assertThat(h.note()).contains("all 2 accounts unreachable", "primary:", "backup:"));
    }

    @Test
    void aSilentServerCostsOneConnectionTimeoutAndItsOtherMailsWaitWithoutTryingIt() throws Exception {
        AtomicInteger connections = new AtomicInteger();
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread acceptor = new Thread(() -> {
                List<Socket> held = new ArrayList<>();
                while (!silent.isClosed()) {
                    try {
                        held.add(silent.accept()); // accept, never greet
                        connections.incrementAndGet();
                    } catch (IOException closed) {
                        return;
                    }
                }
            });
            acceptor.start();
            sessions.put("lonely", session(silent.getLocalPort(), null));
            MailDelivery delivery = cut();

            long started = System.nanoTime();
            List<Change> changes = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                changes.add(delivery.deliver(mail(10 + i, "silent " + i, "lonely"), DONE));
            }
            long elapsedMs = (System.nanoTime() - started) / 1_000_000;

            assertThat(changes).allSatisfy(c -> assertThat(c).isInstanceOf(Change.HandedBack.class));
            assertThat(connections.get()).as("one connection for five mails").isEqualTo(1);
            assertThat(elapsedMs).as("one greeting timeout (1 s), not five").isLessThan(4000);
        }
    }

    @Test
    void anAnswerToTheEndOfDataThatNeverComesLeavesTheMailInDoubtAndItIsNotSentAgainAtOnce() throws Exception {
        AtomicInteger dataCommands = new AtomicInteger();
        SMTPServer late = SMTPServer.port(0).bindAddress(InetAddress.getLoopbackAddress())
                .messageHandlerFactory(context -> new MessageHandler() {
                    @Override
                    public void from(String from) {
                    }

                    @Override
                    public void recipient(String recipient) {
                    }

                    @Override
                    public String data(InputStream data) throws IOException {
                        data.readAllBytes();
                        dataCommands.incrementAndGet();
                        try {
                            Thread.sleep(3000); // past the client's 1 s read timeout
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        return null;
                    }

                    @Override
                    public void done() {
                    }
                }).build();
        late.start();
        try {
            sessions.put("lonely", session(late.getPortAllocated(), null));
            MailDelivery delivery = cut();
            delivery.deliver(mail(20, "warm-up opens the connection", "lonely"), DONE);
            dataCommands.set(0);

            Change change = delivery.deliver(mail(21, "late answer", "lonely"), DONE);

            assertThat(change).isInstanceOfSatisfying(Change.Attempted.class, a -> {
                AttemptResult r = a.result();
                assertThat(r.verdict()).isEqualTo(Verdict.IN_DOUBT);
                assertThat(r.error()).startsWith("in doubt");
            });
            Thread.sleep(3500);
            assertThat(dataCommands.get()).as("DATA went out once, never again on a new connection").isEqualTo(1);
        } finally {
            late.stop();
        }
    }

    @Test
    void whenTheSendStartedMarkIsNotRecordedInTimeTheServerGetsNothing() throws Exception {
        MailDelivery delivery = cut();
        GroupCommit.Ticket never = new GroupCommit.Ticket();

        assertThatThrownBy(() -> delivery.deliver(mail(30, "unrecorded", "backup"), (id, at) -> never))
                .isInstanceOf(NotRecorded.class);
        Thread.sleep(500);
        assertThat(greenMail.getReceivedMessages()).as("DATA broken off before its end").isEmpty();

        Change again = delivery.deliver(mail(30, "unrecorded", "backup"), DONE);
        assertThat(again).isInstanceOfSatisfying(Change.Attempted.class, a -> assertThat(a.result().sent()).isTrue());
        assertThat(greenMail.getReceivedMessages()).hasSize(1);
    }

    @Test
    void aConnectionTheServerClosedWhileIdleIsOpenedAgainBeforeDataAndTheMailGoesOutOnce() throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        ServerSetup setup = new ServerSetup(port, "127.0.0.1", ServerSetup.PROTOCOL_SMTP);
        GreenMail first = new GreenMail(setup);
        first.start();
        sessions.put("lonely", session(port, null));
        MailDelivery delivery = cut();
        delivery.deliver(mail(40, "first", "lonely"), DONE);
        first.stop(); // closes the pooled connection's other end
        GreenMail restarted = new GreenMail(setup);
        restarted.start();
        try {
            Change change = delivery.deliver(mail(41, "after the server restarted", "lonely"), DONE);

            assertThat(change).isInstanceOfSatisfying(Change.Attempted.class, a -> assertThat(a.result().sent()).isTrue());
            assertThat(restarted.getReceivedMessages()).extracting(m -> m.getSubject())
                    .containsExactly("after the server restarted");
        } finally {
            restarted.stop();
        }
    }

    @Test
    void aMailPastItsExpiryIsExpiredAndAnAccountNoLongerConfiguredFailsTheAttemptNamingIt() throws Exception {
        ClaimedMail old = mail(50, "too late", "backup");
        ClaimedMail expired = new ClaimedMail(old.id(), old.messageId(), old.createdAt(), 5, Instant.now().minusSeconds(1),
                old.from(), old.fromName(), old.replyTo(), old.to(), old.cc(), old.bcc(), old.subject(), old.account(),
                old.settled(), old.headers(), old.attachments(), old.body());
        assertThat(cut().deliver(expired, DONE)).isInstanceOfSatisfying(Change.Attempted.class,
                a -> assertThat(a.result().verdict()).isEqualTo(Verdict.EXPIRED));
        assertThat(cut().deliver(mail(51, "orphan", "retired"), DONE)).isInstanceOfSatisfying(Change.Attempted.class, a -> {
            assertThat(a.result().verdict()).isEqualTo(Verdict.TRANSIENT);
            assertThat(a.result().error()).contains("retired", "not configured");
        });
        assertThat(greenMail.getReceivedMessages()).isEmpty();
    }

    static Session session(int port, String envelopeSender) {
        Properties props = new Properties();
        props.setProperty("mail.transport.protocol", "smtp");
        props.setProperty("mail.smtp.host", "127.0.0.1");
        props.setProperty("mail.smtp.port", Integer.toString(port));
        props.setProperty("mail.smtp.connectiontimeout", "1000");
        props.setProperty("mail.smtp.timeout", "1000");
        props.setProperty("mail.smtp.writetimeout", "1000");
        props.setProperty("mail.smtp.sendpartial", "true");
        if (envelopeSender != null) {
            props.setProperty("mail.smtp.from", envelopeSender);
        }
        return Session.getInstance(props);
    }

    static ClaimedMail mailTo(long id, int attemptsRemaining, String... to) {
        return new ClaimedMail(id, "<" + id + ".sim@example.com>", CREATED, attemptsRemaining, null, "alice@example.com",
                "Alice", null, List.of(to), List.of(), List.of(), "simulated", "backup", Map.of(), List.of(), List.of(),
                new ClaimedMail.Body("Hello", null));
    }

    /** Simulator addresses are never sent to, in live mode too; each gets the reply its name asks for. */
    @Test
    void simulatorAddressesGetTheirOutcomeAndNothingReachesTheServer() throws Exception {
        String domain = "@" + dev.mailqueue.address.control.SimulatorAddress.DOMAIN;
        Change first = cut().deliver(mailTo(50, 5, "success" + domain, "Bounce+x" + domain, "defer" + domain,
                "nobody" + domain), DONE);

        assertThat(first).isInstanceOfSatisfying(Change.Attempted.class, a -> {
            assertThat(a.result().verdict()).as("defer@ is open").isEqualTo(Verdict.TRANSIENT);
            assertThat(a.result().recipients()).extracting(r -> r.address() + " " + r.status() + " " + r.enhancedStatus())
                    .containsExactly("success" + domain + " SENT 2.0.0", "Bounce+x" + domain + " REFUSED 5.1.1",
                            "defer" + domain + " DEFERRED 4.2.1", "nobody" + domain + " REFUSED 5.1.1");
        });
        assertThat(cut().deliver(mailTo(51, 4, "defer" + domain), DONE)).as("a later attempt")
                .isInstanceOfSatisfying(Change.Attempted.class, a -> {
                    assertThat(a.result().verdict()).isEqualTo(Verdict.SENT);
                    assertThat(a.result().replyCode()).isEqualTo(250);
                });
        assertThat(greenMail.getReceivedMessages()).isEmpty();
    }

    /** A mail to a real and a simulated address: the real one is sent to alone, both outcomes are recorded. */
    @Test
    void aRealRecipientBesideASimulatedOneGetsTheMailAlone() throws Exception {
        String bounce = "bounce@" + dev.mailqueue.address.control.SimulatorAddress.DOMAIN;
        Change change = cut().deliver(mailTo(52, 5, "bob@example.com", bounce), DONE);

        assertThat(change).isInstanceOfSatisfying(Change.Attempted.class, a -> {
            assertThat(a.result().verdict()).isEqualTo(Verdict.SENT);
            assertThat(a.result().recipients()).extracting(r -> r.address() + " " + r.status())
                    .containsExactlyInAnyOrder("bob@example.com SENT", bounce + " REFUSED");
        });
        assertThat(greenMail.getReceivedMessages()).singleElement()
                .satisfies(m -> assertThat(m.getAllRecipients()).extracting(Object::toString).contains(bounce));
        // GreenMail makes a mailbox per envelope recipient (RCPT TO).
        assertThat(greenMail.getUserManager().getUserByEmail("bob@example.com")).isNotNull();
        assertThat(greenMail.getUserManager().getUserByEmail(bounce)).isNull();
    }

    /** Sandbox: composed in full, recorded as sent with a reply that says it was not; nothing leaves. */
    @Test
    void inSandboxModeNothingLeavesAndTheMailIsRecordedAsSentSayingSo() throws Exception {
        Change change = cut(dev.mailqueue.settings.control.DeliveryMode.SANDBOX, null)
                .deliver(mailTo(53, 5, "bob@example.com", "carol@example.org"), DONE);

        assertThat(change).isInstanceOfSatisfying(Change.Attempted.class, a -> {
            assertThat(a.result().verdict()).isEqualTo(Verdict.SENT);
            assertThat(a.result().replyText()).contains("sandbox", "not sent");
            assertThat(a.result().recipients()).extracting(r -> r.address() + " " + r.status())
                    .containsExactly("bob@example.com SENT", "carol@example.org SENT");
        });
        assertThat(greenMail.getReceivedMessages()).isEmpty();
    }

    /** Redirect: the envelope holds the redirect address alone; the headers stay, X-Original-To names the recipients. */
    @Test
    void inRedirectModeTheMailGoesToTheRedirectAddressNamingItsRecipients() throws Exception {
        Change change = cut(dev.mailqueue.settings.control.DeliveryMode.REDIRECT, "qa@staging.example")
                .deliver(mailTo(54, 5, "bob@example.com", "carol@example.org"), DONE);

        assertThat(change).isInstanceOfSatisfying(Change.Attempted.class,
                a -> assertThat(a.result().verdict()).isEqualTo(Verdict.SENT));
        assertThat(greenMail.getReceivedMessages()).singleElement().satisfies(m -> {
            assertThat(m.getHeader("To", ",")).contains("bob@example.com", "carol@example.org");
            assertThat(m.getHeader(RecipientPlan.ORIGINAL_TO, ",")).contains("bob@example.com", "carol@example.org");
        });
        // GreenMail makes a mailbox per envelope recipient (RCPT TO): the redirect address alone.
        assertThat(greenMail.getUserManager().getUserByEmail("qa@staging.example")).isNotNull();
        assertThat(greenMail.getUserManager().getUserByEmail("bob@example.com")).isNull();
        assertThat(greenMail.getUserManager().getUserByEmail("carol@example.org")).isNull();
    }
}
