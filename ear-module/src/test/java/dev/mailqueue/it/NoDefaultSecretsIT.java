package dev.mailqueue.it;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shipped configuration holds no default secret (61ec004 had a key store password and database
 * passwords that every copy shared), and a server not given one does not run the queue: its log names
 * the variable to set. Shown on a second Liberty server started with the test configuration minus the
 * key store password.
 */
@Tag(QueueServerIT.DATABASE_NEUTRAL)
class NoDefaultSecretsIT extends QueueServerIT {

    private static final Path LIBERTY = Path.of(System.getProperty("it.wlp.home")).resolve("../../../../liberty").normalize();

    @Test
    void noPasswordVariableOfTheShippedConfigurationHasADefault() throws IOException {
        Pattern variable = Pattern.compile("<variable\\s+name=\"([^\"]*password[^\"]*)\"([^>]*)>");
        for (Path file : List.of(LIBERTY.resolve("server.xml"), LIBERTY.resolve("db/postgresql.xml"),
                LIBERTY.resolve("db/mariadb.xml"), LIBERTY.resolve("db/derby.xml"))) {
            Matcher m = variable.matcher(Files.readString(file));
            while (m.find()) {
                if (m.group(1).equals("mailqueue.smtp.password")) {
                    // Liberty's mail session needs some password even without SMTP AUTH; with AUTH the application
                    // refuses this placeholder (RequiredSecrets).
                    assertThat(m.group(2)).contains("defaultValue=\"unused-without-smtp-auth\"");
                } else {
                    assertThat(m.group(2)).as("%s in %s", m.group(1), file).doesNotContainPattern("defaultValue=\"[^\"]+\"");
                }
            }
        }
        assertThat(Files.readString(LIBERTY.resolve("server.xml"))).doesNotContain("mailqueue-keystore");
    }

    @Test
    void aServerWithoutTheKeyStorePasswordDoesNotRunTheQueueAndSaysWhy() throws Exception {
        try (SecondServer server = SecondServer.startEdited(overrides -> overrides.replaceAll(
                "<variable name=\"mailqueue.keystore.password\"[^>]*/>", ""))) {
            String log = Files.readString(SecondServer.log());
            assertThat(log).contains("mailqueue.keystore.password (the password of the HTTPS key store) is not set")
                    .contains("MAILQUEUE_KEYSTORE_PASSWORD").contains("CWWKZ0002E");
            assertThat(log).doesNotContain("CWWKZ0001I: Application mailqueue started");
            assertThat(QueueApi.getFrom(SecondServer.BASE, "/api/mails/1").headers().firstValue("Content-Type").orElse(""))
                    .as("no queue answers there").doesNotContain("json");
            assertThat(QueueApi.getAs(null, SecondServer.BASE, "/health/ready").statusCode())
                    .as("readiness tells a load balancer").isEqualTo(503);
        }
    }
}
