package dev.mailqueue.dispatch.control;

import com.icegreen.greenmail.junit5.GreenMailExtension;
import com.icegreen.greenmail.util.ServerSetupTest;
import dev.mailqueue.account.control.Account;
import dev.mailqueue.account.control.AccountSettings;
import dev.mailqueue.account.control.AccountThrottle;
import dev.mailqueue.account.control.Accounts;
import jakarta.mail.Session;
import jakarta.mail.internet.MimeMessage;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.LocalDateTime;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Failover between SMTP accounts against a real SMTP server (GreenMail) and a port where nothing
 * listens: an unreachable account hands the mail to the next account of its profile in the same
 * attempt, with that account's envelope sender; an account that answers with a refusal does not.
 * The accounts have no rate limits here, so no database is involved.
 */
class AccountSenderTest {

    static final LocalDateTime CREATED = LocalDateTime.of(2030, 3, 14, 9, 26, 53);

    @RegisterExtension
    final GreenMailExtension greenMail = new GreenMailExtension(ServerSetupTest.SMTP.dynamicPort());

    final Map<String, Session> sessions = new HashMap<>();
    Accounts accounts;
    int deadPort;

    @BeforeEach
    void accounts() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            deadPort = socket.getLocalPort();
        }
        Map<String, String> settings = Map.of(
                "mailqueue.accounts", "primary,backup,lonely",
                "mailqueue.account.primary.failover", "backup");
        accounts = Accounts.of(AccountSettings.parse(name -> Optional.ofNullable(settings.get(name))));
        sessions.put("primary", session(deadPort, null));
        sessions.put("backup", session(greenMail.getSmtp().getPort(), "bounces@backup.example"));
        sessions.put("lonely", session(deadPort, null));
    }

    AccountSender cut() {
        return new AccountSender(accounts, new AccountThrottle(), (Account a) -> new SmtpConnection(sessions.get(a.name())));
    }

    @Test
    void anUnreachableAccountFailsOverToTheNextWithItsEnvelopeSender() throws Exception {
        MimeMessage message = MimeMessageFactory.compose(sessions.get("primary"), Rows.queued("failover", CREATED));

        AccountSender.Result result;
        try (AccountSender cut = cut()) {
            result = cut.send("primary", message, message.getAllRecipients());
        }

        assertThat(result.sent()).isTrue();
        assertThat(result.account()).isEqualTo("backup");
        assertThat(result.reply().code()).isEqualTo(250);
        assertThat(greenMail.getReceivedMessages()).singleElement().satisfies(m -> {
            assertThat(m.getSubject()).isEqualTo("failover");
            assertThat(m.getHeader("Return-Path")).as("MAIL FROM of the backup account")
                    .containsExactly("<bounces@backup.example>");
        });
    }

    @Test
    void withoutFailoverAnUnreachableAccountFailsTheAttemptWithoutAReply() throws Exception {
        MimeMessage message = MimeMessageFactory.compose(sessions.get("lonely"), Rows.queued("stuck", CREATED));

        AccountSender.Result result;
        try (AccountSender cut = cut()) {
            result = cut.send("lonely", message, message.getAllRecipients());
        }

        assertThat(result.sent()).isFalse();
        assertThat(result.deferUntil()).isNull();
        assertThat(result.account()).isEqualTo("lonely");
        assertThat(result.reply()).isEqualTo(SmtpReply.NONE);
        assertThat(result.error()).contains("account unreachable").contains("onnect");
        assertThat(greenMail.getReceivedMessages()).isEmpty();
    }

    @Test
    void whenEveryAccountIsUnreachableTheErrorNamesThemAll() throws Exception {
        sessions.put("backup", session(deadPort, null));
        MimeMessage message = MimeMessageFactory.compose(sessions.get("primary"), Rows.queued("nowhere", CREATED));

        AccountSender.Result result;
        try (AccountSender cut = cut()) {
            result = cut.send("primary", message, message.getAllRecipients());
        }

        assertThat(result.sent()).isFalse();
        assertThat(result.account()).isEqualTo("backup");
        assertThat(result.error()).contains("all 2 accounts unreachable").contains("primary:").contains("backup:");
    }

    @Test
    void anAccountThatIsNoLongerConfiguredFailsTheAttemptNamingIt() throws Exception {
        MimeMessage message = MimeMessageFactory.compose(sessions.get("primary"), Rows.queued("orphan", CREATED));

        try (AccountSender cut = cut()) {
            AccountSender.Result result = cut.send("retired", message, message.getAllRecipients());
            assertThat(result.sent()).isFalse();
            assertThat(result.error()).contains("retired").contains("not configured");
        }
    }

    private static Session session(int port, String envelopeSender) {
        Properties props = new Properties();
        props.setProperty("mail.transport.protocol", "smtp");
        props.setProperty("mail.smtp.host", "127.0.0.1");
        props.setProperty("mail.smtp.port", Integer.toString(port));
        props.setProperty("mail.smtp.connectiontimeout", "5000");
        props.setProperty("mail.smtp.timeout", "5000");
        if (envelopeSender != null) {
            props.setProperty("mail.smtp.from", envelopeSender);
        }
        return Session.getInstance(props);
    }
}
