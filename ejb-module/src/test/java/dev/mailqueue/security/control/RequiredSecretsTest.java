package dev.mailqueue.security.control;

import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** Which secrets a server must be given, since the shipped configuration has no default for them. */
class RequiredSecretsTest {

    static java.util.List<String> missing(Map<String, String> config, boolean derby) {
        return RequiredSecrets.missing(config::containsKey,
                name -> Optional.ofNullable(config.get(name)).filter(v -> !v.isEmpty()), derby);
    }

    @Test
    void theKeyStorePasswordIsAlwaysNeededAndTheDatabasePasswordUnlessDerby() {
        assertThat(missing(Map.of(), true)).singleElement().asString()
                .startsWith("mailqueue.keystore.password").contains("MAILQUEUE_KEYSTORE_PASSWORD");
        assertThat(missing(Map.of(), false)).hasSize(2).anySatisfy(m -> assertThat(m)
                .startsWith("mailqueue.db.password").contains("MAILQUEUE_DB_PASSWORD"));
        assertThat(missing(Map.of("mailqueue.keystore.password", "k", "mailqueue.db.password", "d"), false)).isEmpty();
    }

    @Test
    void anEmptyPasswordSetOnPurposeIsAccepted() {
        assertThat(missing(Map.of("mailqueue.keystore.password", "k", "mailqueue.db.password", ""), false)).isEmpty();
    }

    @Test
    void withSmtpAuthTheShippedPlaceholderIsNoPassword() {
        Map<String, String> base = Map.of("mailqueue.keystore.password", "k", "mailqueue.smtp.auth", "true",
                "mailqueue.smtp.password", RequiredSecrets.SMTP_PLACEHOLDER);
        assertThat(missing(base, true)).singleElement().asString().startsWith("mailqueue.smtp.password");
        assertThat(missing(Map.of("mailqueue.keystore.password", "k", "mailqueue.smtp.auth", "true",
                "mailqueue.smtp.password", "s3cret"), true)).isEmpty();
        assertThat(missing(Map.of("mailqueue.keystore.password", "k", "mailqueue.smtp.auth", "false",
                "mailqueue.smtp.password", RequiredSecrets.SMTP_PLACEHOLDER), true)).isEmpty();
    }
}
