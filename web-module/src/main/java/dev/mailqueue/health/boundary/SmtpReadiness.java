package dev.mailqueue.health.boundary;

import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.mail.MessagingException;
import jakarta.mail.Session;
import jakarta.mail.Transport;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Ready only while the SMTP server of the container's mail session ({@code mail/mailqueue}) accepts a
 * connection: connect (with the session's credentials and STARTTLS settings, within its connect
 * timeout), then QUIT. Mail still queues while it is down, but nothing leaves. With several SMTP
 * accounts this becomes one check per account.
 */
@Readiness
@ApplicationScoped
public class SmtpReadiness implements HealthCheck {

    @Resource(lookup = "mail/mailqueue")
    Session session;

    @Override
    public HealthCheckResponse call() {
        // Liberty's <mailSession host=".."> sets mail.host; a <property> may set mail.smtp.host instead.
        String host = session.getProperty("mail.smtp.host");
        String server = (host == null ? session.getProperty("mail.host") : host) + ":"
                + session.getProperty("mail.smtp.port");
        try (Transport transport = session.getTransport()) {
            transport.connect();
            return HealthCheckResponse.named("smtp").up().withData("server", server).build();
        } catch (MessagingException e) {
            return HealthCheckResponse.named("smtp").down().withData("server", server)
                    .withData("error", String.valueOf(e.getMessage())).build();
        }
    }
}
