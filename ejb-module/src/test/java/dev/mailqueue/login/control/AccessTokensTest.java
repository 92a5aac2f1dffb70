package dev.mailqueue.login.control;

import okhttp3.mockwebserver.RecordedRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Signature;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The token of each OAuth2 account against a real authorization server: kept, renewed, shared, replaced. */
class AccessTokensTest {

    private static final String SECRET = "s3cret-of-the-test-client";

    @TempDir
    Path dir;

    @Test
    void aTokenIsKeptUntilItsRenewalTimeThenReplaced() throws Exception {
        try (AuthorizationServer server = new AuthorizationServer(4)) {
            AccessTokens tokens = tokens(secretGrant(server.tokenUri()), Duration.ofSeconds(1));
            IssuedToken first = tokens.token("o365");
            assertThat(tokens.token("o365")).isEqualTo(first);
            List<RecordedRequest> requests = server.requests();
            assertThat(requests).hasSize(1);
            Map<String, String> form = form(requests.get(0));
            assertThat(form).containsEntry("grant_type", "client_credentials").containsEntry("scope", "smtp.send");
            assertThat(requests.get(0).getHeader("Authorization")).isEqualTo("Basic "
                    + Base64.getEncoder().encodeToString(("it-client:" + SECRET).getBytes(StandardCharsets.UTF_8)));

            Thread.sleep(3_100); // a 4 s token with a 1 s margin is renewed from 3 s on
            IssuedToken second = tokens.token("o365");
            assertThat(second.value()).isNotEqualTo(first.value());
            assertThat(tokens.state("o365")).get().satisfies(s -> {
                assertThat(s.renewals()).isEqualTo(2);
                assertThat(s.grant()).isEqualTo("client-credentials");
                assertThat(s.lastError()).isNull();
            });
        }
    }

    @Test
    void callersThatFindNoTokenShareOneRequest() throws Exception {
        try (AuthorizationServer server = new AuthorizationServer(60)) {
            AccessTokens tokens = tokens(secretGrant(server.tokenUri()), Duration.ofSeconds(10));
            ExecutorService pool = Executors.newFixedThreadPool(8);
            List<Callable<String>> calls = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                calls.add(() -> tokens.token("o365").value());
            }
            Set<String> seen = new HashSet<>();
            for (Future<String> f : pool.invokeAll(calls)) {
                seen.add(f.get());
            }
            pool.shutdown();
            assertThat(seen).hasSize(1);
            assertThat(server.requests()).hasSize(1);
        }
    }

    @Test
    void aRefusedTokenIsReplacedOnceEvenWhenSeveralReportIt() throws Exception {
        try (AuthorizationServer server = new AuthorizationServer(60)) {
            AccessTokens tokens = tokens(secretGrant(server.tokenUri()), Duration.ofSeconds(10));
            IssuedToken refused = tokens.token("o365");
            tokens.refused("o365", refused);
            IssuedToken fresh = tokens.token("o365");
            tokens.refused("o365", refused); // a second claimer that held the old one
            assertThat(tokens.token("o365")).isEqualTo(fresh).isNotEqualTo(refused);
            assertThat(tokens.state("o365").orElseThrow().refusals()).isEqualTo(1);
            assertThat(server.requests()).hasSize(2);
        }
    }

    @Test
    void whileTheServerIsAwayTheHeldTokenServesUntilItExpiresThenTheErrorNamesTheGrant() throws Exception {
        AccessTokens tokens;
        IssuedToken held;
        URI uri;
        Instant received;
        try (AuthorizationServer server = new AuthorizationServer(4)) {
            uri = server.tokenUri();
            tokens = tokens(secretGrant(uri), Duration.ofSeconds(2));
            held = tokens.token("o365");
            received = Instant.now();
        }
        // past the renewal time (2 s; 1.5 s when the server rounds expires_in down to 3 s), before the expiry (4 s, or 3)
        sleepUntil(received.plusMillis(2_300));
        assertThat(tokens.token("o365")).isEqualTo(held);
        assertThat(tokens.state("o365").orElseThrow().lastError())
                .contains("client-credentials", uri.toString(), "could not be reached");
        sleepUntil(received.plusMillis(4_200));
        assertThatThrownBy(() -> tokens.token("o365")).isInstanceOf(TokenException.class)
                .hasMessageContaining("OAuth2 client-credentials grant of client it-client at " + uri)
                .hasMessageNotContaining(SECRET);
    }

    @Test
    void theJwtBearerGrantSendsAnAssertionSignedWithTheKeyForTheSubject() throws Exception {
        KeyPair pair = rsa();
        Path key = pem(pair);
        try (AuthorizationServer server = new AuthorizationServer(60)) {
            OAuth2Grant grant = new OAuth2Grant("gmail", OAuth2Grant.Kind.JWT_BEARER, server.tokenUri(),
                    "queue@project.iam.example", null, key, "key-1", null, List.of("https://mail.google.com/"),
                    "sender@example.com", OAuth2Grant.ClientAuth.NONE);
            AccessTokens tokens = tokens(grant, Duration.ofSeconds(10));
            assertThat(tokens.token("gmail").value()).isNotBlank();
            Map<String, String> form = form(server.requests().get(0));
            assertThat(form).containsEntry("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer");
            String claims = verified(form.get("assertion"), pair);
            assertThat(claims).contains("\"iss\":\"queue@project.iam.example\"", "\"sub\":\"sender@example.com\"",
                    "\"scope\":\"https://mail.google.com/\"", "\"aud\":\"" + server.tokenUri() + "\"");
        }
    }

    @Test
    void clientCredentialsWithAKeySendASignedClientAssertionAndNoSecret() throws Exception {
        KeyPair pair = rsa();
        Path key = pem(pair);
        try (AuthorizationServer server = new AuthorizationServer(60)) {
            OAuth2Grant grant = new OAuth2Grant("o365", OAuth2Grant.Kind.CLIENT_CREDENTIALS, server.tokenUri(),
                    "it-client", null, key, null, null, List.of("smtp.send"), null, OAuth2Grant.ClientAuth.PRIVATE_KEY_JWT);
            AccessTokens tokens = tokens(grant, Duration.ofSeconds(10));
            tokens.token("o365");
            RecordedRequest request = server.requests().get(0);
            Map<String, String> form = form(request);
            assertThat(request.getHeader("Authorization")).isNull();
            assertThat(form).containsEntry("grant_type", "client_credentials")
                    .containsEntry("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
            assertThat(verified(form.get("client_assertion"), pair))
                    .contains("\"iss\":\"it-client\"", "\"sub\":\"it-client\"", "\"aud\"");
        }
    }

    @Test
    void aRotatedRefreshTokenReplacesTheOldOneInItsFileAndIsTheOneUsedNext() throws Exception {
        Path file = dir.resolve("refresh-token");
        Files.writeString(file, "first-refresh-token\n");
        try (AuthorizationServer server = new AuthorizationServer(60, true)) {
            OAuth2Grant grant = new OAuth2Grant("personal", OAuth2Grant.Kind.REFRESH_TOKEN, server.tokenUri(), "it-client",
                    SECRET, null, null, null, List.of("smtp.send"), null, OAuth2Grant.ClientAuth.CLIENT_SECRET_POST, file);
            AccessTokens tokens = tokens(grant, Duration.ofSeconds(10));
            IssuedToken first = tokens.token("personal");
            String rotated = Files.readString(file).strip();
            assertThat(rotated).as("the rotated refresh token in the file").isNotEmpty().isNotEqualTo("first-refresh-token");
            tokens.refused("personal", first); // the next call asks again, with the rotated refresh token
            tokens.token("personal");

            List<RecordedRequest> requests = server.requests();
            assertThat(requests).hasSize(2);
            Map<String, String> firstForm = form(requests.get(0));
            assertThat(firstForm).containsEntry("grant_type", "refresh_token")
                    .containsEntry("refresh_token", "first-refresh-token").containsEntry("client_id", "it-client")
                    .containsEntry("client_secret", SECRET);
            assertThat(form(requests.get(1))).containsEntry("refresh_token", rotated);
            assertThat(Files.readString(file).strip()).as("rotated again").isNotEqualTo(rotated);
            try (var siblings = Files.list(dir)) {
                assertThat(siblings.map(p -> p.getFileName().toString()))
                        .as("no temporary file left").allMatch(n -> !n.endsWith(".tmp"));
            }
        }
    }

    @Test
    void anEmptyRefreshTokenFileIsAnErrorNamingTheFile() throws Exception {
        Path file = dir.resolve("refresh-token");
        Files.writeString(file, "\n");
        try (AuthorizationServer server = new AuthorizationServer(60)) {
            OAuth2Grant grant = new OAuth2Grant("personal", OAuth2Grant.Kind.REFRESH_TOKEN, server.tokenUri(), "public-app",
                    null, null, null, null, List.of("smtp.send"), null, OAuth2Grant.ClientAuth.NONE, file);
            AccessTokens tokens = tokens(grant, Duration.ofSeconds(10));
            assertThatThrownBy(() -> tokens.token("personal")).isInstanceOf(TokenException.class)
                    .hasMessageContaining(file.toString()).hasMessageContaining("holds no refresh token");
            assertThat(server.requests()).as("nothing sent").isEmpty();
        }
    }

    @Test
    void aPasswordAccountHasNoLoginState() {
        AccessTokens tokens = AccessTokens.of(Map.of(), Duration.ofSeconds(10), new TokenEndpoint(Duration.ofSeconds(5)));
        assertThat(tokens.usesOAuth2("mailqueue")).isFalse();
        assertThat(tokens.state("mailqueue")).isEmpty();
        assertThatThrownBy(() -> tokens.token("mailqueue")).isInstanceOf(IllegalArgumentException.class);
    }

    private static void sleepUntil(Instant when) throws InterruptedException {
        Thread.sleep(Math.max(0, Duration.between(Instant.now(), when).toMillis()));
    }

    private static AccessTokens tokens(OAuth2Grant grant, Duration renewBefore) {
        return AccessTokens.of(Map.of(grant.account(), grant), renewBefore, new TokenEndpoint(Duration.ofSeconds(5)));
    }

    private static OAuth2Grant secretGrant(URI uri) {
        return new OAuth2Grant("o365", OAuth2Grant.Kind.CLIENT_CREDENTIALS, uri, "it-client", SECRET, null, null, null,
                List.of("smtp.send"), null, OAuth2Grant.ClientAuth.CLIENT_SECRET_BASIC);
    }

    private static Map<String, String> form(RecordedRequest request) {
        Map<String, String> form = new LinkedHashMap<>();
        for (String pair : request.getBody().readUtf8().split("&")) {
            int eq = pair.indexOf('=');
            form.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                    URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
        }
        return form;
    }

    private static KeyPair rsa() throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
        generator.initialize(2048);
        return generator.generateKeyPair();
    }

    private Path pem(KeyPair pair) throws Exception {
        Path file = dir.resolve("client.pem");
        Files.writeString(file, "-----BEGIN PRIVATE KEY-----\n"
                + Base64.getMimeEncoder().encodeToString(pair.getPrivate().getEncoded()) + "\n-----END PRIVATE KEY-----\n");
        return file;
    }

    /**
     * Checks a compact JWS with the JDK's own RS256 (RSASSA-PKCS1-v1_5 with SHA-256, RFC 7518 §3.3), sharing no code
     * with the library that signed it.
     *
     * @return the JWT's claims as JSON text
     */
    private static String verified(String jws, KeyPair pair) throws Exception {
        String[] parts = jws.split("\\.");
        Signature rs256 = Signature.getInstance("SHA256withRSA");
        rs256.initVerify(pair.getPublic());
        rs256.update((parts[0] + "." + parts[1]).getBytes(StandardCharsets.US_ASCII));
        assertThat(rs256.verify(Base64.getUrlDecoder().decode(parts[2]))).as("signature of " + parts[0]).isTrue();
        return new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8);
    }
}
