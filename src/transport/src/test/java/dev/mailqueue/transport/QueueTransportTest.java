package dev.mailqueue.transport;

import jakarta.mail.Message;
import jakarta.mail.MessagingException;
import jakarta.mail.Session;
import jakarta.mail.Transport;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;
import org.junit.jupiter.api.Test;

import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class QueueTransportTest {

    @Test
    void aSessionNamingTheProtocolSendsThroughTheQueueTransport() throws Exception {
        Session session = Session.getInstance(properties());

        assertThat(session.getTransport(new InternetAddress("customer@example.com"))).isInstanceOf(QueueTransport.class);
        assertThat(session.getTransport()).isInstanceOf(QueueTransport.class);
    }

    @Test
    void withoutTheQueueAnUnchangedSendFailsWithAMessagingExceptionNamingWhereItLooked() throws Exception {
        Properties properties = properties();
        properties.setProperty("mail.mailqueue.jndi", "java:global/nowhere/Mails");
        MimeMessage message = new MimeMessage(Session.getInstance(properties));
        message.setFrom("orders@shop.example");
        message.setRecipients(Message.RecipientType.TO, "customer@example.com");
        message.setText("hello");

        assertThatThrownBy(() -> Transport.send(message))
                .isInstanceOf(MessagingException.class)
                .hasMessageContaining("java:global/nowhere/Mails");
    }

    private static Properties properties() {
        Properties properties = new Properties();
        properties.setProperty("mail.transport.protocol", QueueTransport.PROTOCOL);
        properties.setProperty("mail.transport.protocol.rfc822", QueueTransport.PROTOCOL);
        return properties;
    }
}
