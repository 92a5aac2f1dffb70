package dev.mailqueue.dispatch.control;

import com.icegreen.greenmail.junit5.GreenMailExtension;
import com.icegreen.greenmail.util.ServerSetupTest;
import dev.mailqueue.account.control.Account;
import dev.mailqueue.account.control.AccountHealth;
import dev.mailqueue.account.control.AccountThrottle;
import dev.mailqueue.account.control.Accounts;
import dev.mailqueue.queue.control.Change;
import dev.mailqueue.queue.control.ClaimedMail;
import dev.mailqueue.queue.control.Lease;
import dev.mailqueue.queue.control.Verdict;
import dev.mailqueue.settings.control.DeliveryMode;
import dev.mailqueue.settings.control.QueueSettingsTest;
import dev.mailqueue.testsupport.QueueDatabase;
import jakarta.mail.Session;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Each account's try settles its send slot in one place, whichever way it ends, on the real rate state
 * ({@link QueueDatabase}) and a real SMTP server (GreenMail) or a port where nothing listens: a mail the server got
 * keeps its slot for the account's window; a try that reached no server (unreachable, refused for want of
 * SMTPUTF8, its gate never opened) gives it back at once, so the account may send that many more mails now.
 */
@Tag("database")
class AccountAttemptTest {

    @RegisterExtension
    static final QueueDatabase db = QueueDatabase.perTestClass();

    @RegisterExtension
    final GreenMailExtension greenMail = new GreenMailExtension(ServerSetupTest.SMTP.dynamicPort());

    final Map<String, Session> sessions = new HashMap<>();
    MailDelivery delivery;

    @AfterEach
    void close() {
        if (delivery != null) {
            delivery.close();
        }
    }

    /** @return a delivery over one account of 3 mails a minute, whose relay is GreenMail or a dead port */
    Account account(boolean reachable) throws IOException {
        int port;
        if (reachable) {
            port = greenMail.getSmtp().getPort();
        } else {
            try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                port = socket.getLocalPort();
            }
        }
        Account account = new Account("acct-" + UUID.randomUUID().toString().substring(0, 8), List.of(), Set.of(), 3, 0);
        sessions.put(account.name(), MailDeliveryTest.session(port, null));
        Verdicts verdicts = new Verdicts(new Lease(1, "host/server#1"), "host/server");
        SmtpConnections pool = SmtpConnections.of(a -> sessions.get(a.name()));
        delivery = new MailDelivery(new MailComposer(sessions.get(account.name()), id -> null, (id, seq) -> new byte[0],
                MailComposer.NO_LIST_FIELDS, DkimSigning.NONE), new RecipientPlan.Policy(DeliveryMode.LIVE, null, 5),
                new AccountFailover(new AccountParts(Accounts.of(List.of(account)),
                        AccountHealth.of(QueueSettingsTest.defaults("mailqueue.smtp.cool-down.ms", "60000")),
                        new SendPermits(AccountThrottle.on(db.dataSource())), pool::borrow, pool::giveBack,
                        (elapsed, ok) -> { }, 500, verdicts)), verdicts);
        return account;
    }

    static ClaimedMail mail(long id, String from, Account account) {
        return new ClaimedMail(id, "<" + id + ".slot@example.com>", Instant.now(), 5, null, from, null, null,
                List.of("bob@example.com"), List.of(), List.of(), "slot", account.name(), Map.of(), List.of(), List.of(),
                new ClaimedMail.Body("Hello", null));
    }

    static int free(Account account) {
        return AccountThrottle.on(db.dataSource()).available(account, Instant.now());
    }

    @Test
    void aMailTheServerGotKeepsItsSlot() throws Exception {
        Account account = account(true);

        Change change = delivery.deliver(mail(1, "alice@example.com", account), MailDeliveryTest.DONE);

        assertThat(change).isInstanceOfSatisfying(Change.Attempted.class, a -> assertThat(a.result().sent()).isTrue());
        assertThat(greenMail.getReceivedMessages()).hasSize(1);
        assertThat(free(account)).as("one of 3 slots taken for the window").isEqualTo(2);
    }

    @Test
    void anUnreachableRelayGivesItsSlotBack() throws Exception {
        Account account = account(false);

        Change change = delivery.deliver(mail(2, "alice@example.com", account), MailDeliveryTest.DONE);

        assertThat(change).isInstanceOf(Change.HandedBack.class);
        assertThat(free(account)).isEqualTo(3);
    }

    @Test
    void aMailRefusedBeforeSendingForWantOfSmtpUtf8GivesItsSlotBack() throws Exception {
        Account account = account(true);

        Change change = delivery.deliver(mail(3, "josé@example.test", account), MailDeliveryTest.DONE);

        assertThat(change).isInstanceOfSatisfying(Change.Attempted.class,
                a -> assertThat(a.result().verdict()).isEqualTo(Verdict.PERMANENT));
        assertThat(greenMail.getReceivedMessages()).isEmpty();
        assertThat(free(account)).isEqualTo(3);
    }

    @Test
    void aGateThatNeverOpensGivesTheSlotBackAndTheServerKeepsNothing() throws Exception {
        Account account = account(true);
        GroupCommit.Ticket never = new GroupCommit.Ticket();

        assertThatThrownBy(() -> delivery.deliver(mail(4, "alice@example.com", account), (id, at) -> never))
                .isInstanceOf(NotRecorded.class);

        assertThat(free(account)).isEqualTo(3);
        assertThat(greenMail.getReceivedMessages()).isEmpty();
    }
}
