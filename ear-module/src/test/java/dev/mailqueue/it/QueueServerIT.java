package dev.mailqueue.it;

import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What every integration test class runs against: the real EAR on the Liberty test server, beside it
 * the probe and caller applications, and a GreenMail SMTP server in this JVM that the test server's
 * mail session points at (started before each class's tests; a test may stop and restart it).
 * Tests run as a client of the server: HTTP and SMTP only.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
abstract class QueueServerIT {

    static final SmtpCatcher SMTP = new SmtpCatcher();

    @Deployment(name = "queue", order = 1, testable = false)
    static EnterpriseArchive queue() {
        return Deployments.queue();
    }

    @Deployment(name = "probe", order = 2, testable = false)
    static WebArchive probe() {
        return Deployments.probe();
    }

    @Deployment(name = "caller", order = 3, testable = false)
    static WebArchive caller() {
        return Deployments.caller();
    }

    @BeforeAll
    static void startSmtp() {
        SMTP.start();
    }

    @AfterAll
    static void stopSmtp() {
        SMTP.stop();
    }
}
