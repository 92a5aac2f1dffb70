package dev.mailqueue.login.control;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** How each account logs in, read from settings: what an operator writes, and the errors that name the setting. */
class LoginSettingsTest {

    private static final String P = "mailqueue.account.o365.";

    @Test
    void accountsLogInWithTheirSessionsPasswordUnlessToldOtherwise() {
        assertThat(LoginSettings.parse(settings(Map.of()), List.of("mailqueue", "o365"))).isEmpty();
    }

    @Test
    void aMicrosoft365AccountReadsItsClientCredentials() {
        Map<String, OAuth2Grant> grants = LoginSettings.parse(settings(Map.of(P + "login", "oauth2",
                P + "oauth2.token-url", "https://login.microsoftonline.com/tenant/oauth2/v2.0/token",
                P + "oauth2.client-id", "app", P + "oauth2.client-secret", "hidden-value",
                P + "oauth2.scope", "https://outlook.office365.com/.default")), List.of("mailqueue", "o365"));
        OAuth2Grant grant = grants.get("o365");
        assertThat(grant.grant()).isEqualTo(OAuth2Grant.Kind.CLIENT_CREDENTIALS);
        assertThat(grant.clientAuth()).isEqualTo(OAuth2Grant.ClientAuth.CLIENT_SECRET_BASIC);
        assertThat(grant.scopes()).containsExactly("https://outlook.office365.com/.default");
        assertThat(grant.toString()).doesNotContain("hidden-value");
        assertThat(grants).doesNotContainKey("mailqueue");
    }

    @Test
    void eachMistakeNamesItsSettingAndNeverTheSecret() {
        Map<String, String> base = Map.of(P + "login", "oauth2", P + "oauth2.token-url", "https://idp.example/token",
                P + "oauth2.client-id", "app", P + "oauth2.client-secret", "hidden-value", P + "oauth2.scope", "smtp");
        assertProblem(with(base, P + "login", "kerberos"), P + "login");
        assertProblem(with(base, P + "oauth2.token-url", "http://idp.example/token"), P + "oauth2.token-url");
        assertProblem(with(base, P + "oauth2.grant", "password"), P + "oauth2.grant");
        assertProblem(with(base, P + "oauth2.client-auth", "tls"), P + "oauth2.client-auth");
        assertProblem(with(base, P + "oauth2.scope", " "), P + "oauth2.scope");
        assertProblem(with(base, P + "oauth2.private-key-file", "/nonexistent.pem"), P + "oauth2.private-key-file");
        assertProblem(with(base, P + "oauth2.grant", "jwt-bearer"), P + "oauth2.grant");
        Map<String, String> noSecret = new HashMap<>(base);
        noSecret.remove(P + "oauth2.client-secret");
        assertProblem(noSecret, P + "oauth2.client-secret");
    }

    @Test
    void theRefreshTokenGrantNeedsItsFileAndOnlyIt(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Path file = java.nio.file.Files.writeString(dir.resolve("token"), "r\n");
        Map<String, String> base = Map.of(P + "login", "oauth2", P + "oauth2.grant", "refresh-token",
                P + "oauth2.token-url", "https://idp.example/token", P + "oauth2.client-id", "app",
                P + "oauth2.scope", "smtp", P + "oauth2.refresh-token-file", file.toString());
        OAuth2Grant grant = LoginSettings.parse(settings(base), List.of("o365")).get("o365");
        assertThat(grant.clientAuth()).as("a public client").isEqualTo(OAuth2Grant.ClientAuth.NONE);
        assertThat(grant.refreshTokens()).isEqualTo(file);
        Map<String, String> noFile = new HashMap<>(base);
        noFile.remove(P + "oauth2.refresh-token-file");
        assertProblem(noFile, P + "oauth2.refresh-token-file");
        assertProblem(with(base, P + "oauth2.refresh-token-file", dir.resolve("absent").toString()),
                P + "oauth2.refresh-token-file");
        assertProblem(with(with(base, P + "oauth2.grant", "client-credentials"), P + "oauth2.client-secret", "hidden-value"),
                P + "oauth2.refresh-token-file");
    }

    @Test
    void plainHttpIsAllowedOnLoopbackOnly() {
        Map<String, String> local = Map.of(P + "login", "oauth2", P + "oauth2.token-url", "http://127.0.0.1:8080/token",
                P + "oauth2.client-id", "app", P + "oauth2.client-secret", "s", P + "oauth2.scope", "smtp");
        assertThat(LoginSettings.parse(settings(local), List.of("o365")).get("o365").tokenUri().getPort()).isEqualTo(8080);
    }

    @Test
    void theRenewalMarginAndTimeoutHaveDefaultsAndBounds() {
        assertThat(LoginSettings.renewBefore(settings(Map.of()))).isEqualTo(Duration.ofMinutes(5));
        assertThat(LoginSettings.timeout(settings(Map.of()))).isEqualTo(Duration.ofSeconds(10));
        assertThatThrownBy(() -> LoginSettings.timeout(settings(Map.of(LoginSettings.TIMEOUT, "50"))))
                .hasMessageContaining(LoginSettings.TIMEOUT);
    }

    @Test
    void aShortTokenIsRenewedAtHalfItsLife() {
        java.time.Instant t = java.time.Instant.parse("2026-01-01T00:00:00Z");
        assertThat(new IssuedToken("x", t, t.plusSeconds(3600)).renewAt(Duration.ofMinutes(5))).isEqualTo(t.plusSeconds(3300));
        assertThat(new IssuedToken("x", t, t.plusSeconds(20)).renewAt(Duration.ofMinutes(5))).isEqualTo(t.plusSeconds(10));
        assertThat(new IssuedToken("secret-token", t, t).toString()).doesNotContain("secret-token");
    }

    private static void assertProblem(Map<String, String> values, String setting) {
        assertThatThrownBy(() -> LoginSettings.parse(settings(values), List.of("o365")))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining(setting)
                .hasMessageNotContaining("hidden-value");
    }

    private static Map<String, String> with(Map<String, String> base, String key, String value) {
        Map<String, String> copy = new HashMap<>(base);
        copy.put(key, value);
        return copy;
    }

    private static java.util.function.Function<String, Optional<String>> settings(Map<String, String> values) {
        return name -> Optional.ofNullable(values.get(name));
    }
}
