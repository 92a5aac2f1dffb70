package dev.mailqueue.dispatch.control;

import com.icegreen.greenmail.junit5.GreenMailExtension;
import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.ServerSetup;
import com.icegreen.greenmail.util.ServerSetupTest;
import dev.mailqueue.mail.entity.MailMessage;
import jakarta.mail.Message.RecipientType;
import jakarta.mail.MessagingException;
import jakarta.mail.Session;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * Sending over one reused SMTP connection to a real in-process SMTP server (GreenMail on a free
 * port): what arrives, which reply comes back, that Bcc stays out of the delivered headers, that a
 * dead server gives a failure without a reply, a refusal gives its 5xx code, and that the same
 * connection object works again once the server is back.
 */
class SmtpConnectionTest {

    static final LocalDateTime CREATED = LocalDateTime.of(2030, 3, 14, 9, 26, 53);

    @RegisterExtension
    final GreenMailExtension greenMail = new GreenMailExtension(ServerSetupTest.SMTP.dynamicPort());

    @Test
    void twoMailsOverOneConnectionBothArriveAndEachGets250() throws Exception {
        Session session = session(greenMail.getSmtp().getPort());
        MailMessage first = Rows.queued("first", CREATED);
        MailMessage second = Rows.queued("second", CREATED);

        SmtpReply firstReply;
        SmtpReply secondReply;
        try (SmtpConnection cut = new SmtpConnection(session)) {
            firstReply = cut.send(MimeMessageFactory.compose(session, first));
            secondReply = cut.send(MimeMessageFactory.compose(session, second));
        }

        assertThat(firstReply.code()).isEqualTo(250);
        assertThat(secondReply.code()).isEqualTo(250);
        assertThat(firstReply.text()).startsWith("250");
        MimeMessage[] received = greenMail.getReceivedMessages();
        assertThat(received).extracting(MimeMessage::getSubject).containsExactly("first", "second");
        assertThat(received).extracting(MimeMessage::getMessageID)
                .containsExactly(first.getMessageId(), second.getMessageId());
    }

    @Test
    void aBccRecipientGetsTheMailButNoRecipientSeesABccHeader() throws Exception {
        Session session = session(greenMail.getSmtp().getPort());
        MailMessage mail = Rows.queued("with bcc", CREATED);
        mail.setTo(new ArrayList<>(List.of("alice@to.example")));
        mail.setCc(new ArrayList<>(List.of("carol@cc.example")));
        mail.setBcc(new ArrayList<>(List.of("dave@bcc.example")));

        try (SmtpConnection cut = new SmtpConnection(session)) {
            cut.send(MimeMessageFactory.compose(session, mail));
        }

        assertThat(mailboxOf("dave@bcc.example")).singleElement().satisfies(received -> {
            assertThat(received.getSubject()).isEqualTo("with bcc");
            assertThat(received.getMessageID()).isEqualTo(mail.getMessageId());
        });
        assertThat(mailboxOf("alice@to.example")).hasSize(1);
        assertThat(mailboxOf("carol@cc.example")).hasSize(1);
        assertThat(greenMail.getReceivedMessages()).hasSize(3);
        for (MimeMessage received : greenMail.getReceivedMessages()) {
            assertThat(received.getHeader("Bcc")).isNull();
            assertThat(received.getHeader("To", null)).contains("alice@to.example");
            assertThat(received.getHeader("Cc", null)).contains("carol@cc.example");
        }
    }

    @Test
    void noServerListeningIsAFailureWithoutReply() throws Exception {
        Session session = session(freePort());

        try (SmtpConnection cut = new SmtpConnection(session)) {
            MessagingException e = catchThrowableOfType(MessagingException.class,
                    () -> cut.send(MimeMessageFactory.compose(session, Rows.queued("nobody there", CREATED))));

            assertThat(e).isNotNull();
            assertThat(SmtpReply.of(e)).isEqualTo(SmtpReply.NONE);
        }
    }

    @Test
    void afterTheServerWentAwayAndCameBackTheSameConnectionSendsAgain() throws Exception {
        int port = freePort();
        Session session = session(port);
        GreenMail server = start(port);
        try (SmtpConnection cut = new SmtpConnection(session)) {
            assertThat(cut.send(MimeMessageFactory.compose(session, Rows.queued("before", CREATED))).code()).isEqualTo(250);

            server.stop();
            MessagingException broken = catchThrowableOfType(MessagingException.class,
                    () -> cut.send(MimeMessageFactory.compose(session, Rows.queued("connection broke", CREATED))));
            MessagingException refused = catchThrowableOfType(MessagingException.class,
                    () -> cut.send(MimeMessageFactory.compose(session, Rows.queued("server down", CREATED))));

            assertThat(broken).isNotNull();
            assertThat(SmtpReply.of(broken)).isEqualTo(SmtpReply.NONE);
            assertThat(refused).isNotNull();
            assertThat(SmtpReply.of(refused)).isEqualTo(SmtpReply.NONE);

            server = start(port);
            SmtpReply reply = cut.send(MimeMessageFactory.compose(session, Rows.queued("after", CREATED)));

            assertThat(reply.code()).isEqualTo(250);
            assertThat(server.getReceivedMessages()).extracting(MimeMessage::getSubject).containsExactly("after");
        } finally {
            server.stop();
        }
    }

    /** A server restart between two chunks must not cost the next mail an attempt. */
    @Test
    void aConnectionTheServerDroppedWhileIdleIsReplacedWithoutFailingTheMail() throws Exception {
        int port = freePort();
        Session session = session(port);
        GreenMail server = start(port);
        try (SmtpConnection cut = new SmtpConnection(session)) {
            assertThat(cut.send(MimeMessageFactory.compose(session, Rows.queued("before", CREATED))).code()).isEqualTo(250);
            server.stop();
            server = start(port);

            SmtpReply reply = cut.send(MimeMessageFactory.compose(session, Rows.queued("after restart", CREATED)));

            assertThat(reply.code()).isEqualTo(250);
            assertThat(server.getReceivedMessages()).extracting(MimeMessage::getSubject).containsExactly("after restart");
        } finally {
            server.stop();
        }
    }

    @Test
    void aRefusedRecipientGivesTheServersCodeAndTheConnectionGoesOn() throws Exception {
        Session session = session(greenMail.getSmtp().getPort());
        MimeMessage refused = MimeMessageFactory.compose(session, Rows.queued("refused", CREATED));
        // GreenMail accepts every recipient, but answers "500 Command too long" to a line over 4096 characters.
        refused.setRecipients(RecipientType.TO, new InternetAddress[]{new InternetAddress("r".repeat(5000) + "@example.com")});
        refused.saveChanges();

        try (SmtpConnection cut = new SmtpConnection(session)) {
            MessagingException e = catchThrowableOfType(MessagingException.class, () -> cut.send(refused));
            SmtpReply next = cut.send(MimeMessageFactory.compose(session, Rows.queued("next", CREATED)));

            assertThat(e).isNotNull();
            assertThat(SmtpReply.of(e).code()).isEqualTo(500);
            assertThat(SmtpReply.of(e).text()).contains("500");
            assertThat(next.code()).isEqualTo(250);
        }
        assertThat(greenMail.getReceivedMessages()).extracting(MimeMessage::getSubject).containsExactly("next");
    }

    /** @return what the server delivered into the mailbox of {@code address} */
    private List<MimeMessage> mailboxOf(String address) {
        return greenMail.findReceivedMessages(user -> user.getEmail().equals(address), message -> true).toList();
    }

    private static Session session(int port) {
        Properties props = new Properties();
        props.setProperty("mail.transport.protocol", "smtp");
        props.setProperty("mail.smtp.host", "127.0.0.1");
        props.setProperty("mail.smtp.port", Integer.toString(port));
        props.setProperty("mail.smtp.connectiontimeout", "5000");
        props.setProperty("mail.smtp.timeout", "5000");
        props.setProperty("mail.smtp.writetimeout", "5000");
        return Session.getInstance(props);
    }

    private static GreenMail start(int port) {
        GreenMail server = new GreenMail(new ServerSetup(port, "127.0.0.1", ServerSetup.PROTOCOL_SMTP));
        server.start();
        return server;
    }

    /** @return a loopback port nothing listens on right now */
    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
