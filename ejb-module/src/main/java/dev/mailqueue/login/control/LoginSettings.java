package dev.mailqueue.login.control;

import dev.mailqueue.settings.control.Settings;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * Reads how each SMTP account logs in, from named settings (MicroProfile Config: server.xml variables, environment
 * variables such as {@code MAILQUEUE_ACCOUNT_O365_OAUTH2_CLIENT_SECRET}, or any other config source; never the
 * database):
 * <ul>
 *   <li>{@code mailqueue.account.<name>.login}: {@code password} (default: the user and password of the account's
 *       {@code <mailSession>}) or {@code oauth2} (SASL {@code XOAUTH2} with an access token as the password; the
 *       session then sets {@code mail.smtp.auth=true}, {@code mail.smtp.auth.mechanisms=XOAUTH2} and names the
 *       mailbox in {@code mail.smtp.user}).</li>
 *   <li>{@code mailqueue.account.<name>.oauth2.grant}: {@code client-credentials} (default, RFC 6749 §4.4),
 *       {@code jwt-bearer} (RFC 7523 §2.1) or {@code refresh-token} (RFC 6749 §6).</li>
 *   <li>{@code ...oauth2.refresh-token-file}: for {@code refresh-token} only, and required there: the file holding the
 *       refresh token, which a rotated one replaces ({@link RefreshTokenFile}). The client authenticates with a
 *       secret or key if it has one, else sends only its id (a public client).</li>
 *   <li>{@code ...oauth2.token-url}: the token endpoint; {@code https}, or {@code http} on a loopback host.</li>
 *   <li>{@code ...oauth2.client-id}: the client's identifier. Required.</li>
 *   <li>{@code ...oauth2.client-secret}: the client secret, for client credentials without a key.</li>
 *   <li>{@code ...oauth2.client-auth}: {@code basic} (default) or {@code post}: where the secret goes (RFC 6749
 *       §2.3.1).</li>
 *   <li>{@code ...oauth2.private-key-file}: a PKCS#8 PEM file ({@code -----BEGIN PRIVATE KEY-----}) of an RSA or EC
 *       key: client credentials then authenticate with a signed client assertion (RFC 7523 §2.2) instead of a
 *       secret; the JWT bearer grant signs its assertion with it.</li>
 *   <li>{@code ...oauth2.key-id}, {@code ...oauth2.certificate-file}: the JWS {@code kid} header, and a PEM
 *       certificate whose SHA-256 thumbprint becomes the {@code x5t#S256} header. Optional.</li>
 *   <li>{@code ...oauth2.scope}: the scopes, separated by spaces or commas. Required.</li>
 *   <li>{@code ...oauth2.subject}: the user a JWT bearer grant acts for. Required for {@code jwt-bearer}.</li>
 *   <li>{@code mailqueue.oauth2.renew-before.ms}: how long before a token's expiry it is renewed, 0 to 3,600,000 ms
 *       (default 300,000: five minutes); a token that lives less than twice that is renewed at half its life.</li>
 *   <li>{@code mailqueue.oauth2.timeout.ms}: connect and read timeout of a token request, 1,000 to 120,000 ms
 *       (default 10,000).</li>
 * </ul>
 */
public final class LoginSettings {

    /** The setting of how long before expiry a token is renewed. */
    public static final String RENEW_BEFORE = "mailqueue.oauth2.renew-before.ms";
    /** The setting of a token request's timeout. */
    public static final String TIMEOUT = "mailqueue.oauth2.timeout.ms";


    private LoginSettings() {
    }

    /**
     * @param source   the value of a named setting, empty when it is not set
     * @param accounts the names of the configured accounts
     * @return the OAuth2 grant of each account that logs in with {@code oauth2}, by account name; password
     *         accounts are absent
     * @throws IllegalStateException naming the setting at fault: a login other than password or oauth2, a grant or
     *                               client authentication the queue does not speak, a refresh-token grant without a
     *                               readable refresh token file in a writable folder (or such a file for another grant), a token URL that is not https
     *                               (or http on loopback), a missing client id, scope or subject, both or neither of
     *                               a client secret and a private key, a key or certificate file that cannot be
     *                               read; never showing a secret
     */
    public static Map<String, OAuth2Grant> parse(Function<String, Optional<String>> source, List<String> accounts) {
        Settings setting = Settings.of(source);
        Map<String, OAuth2Grant> grants = new LinkedHashMap<>();
        for (String account : accounts) {
            String prefix = "mailqueue.account." + account + ".";
            String login = setting.optional(prefix + "login").orElse("password").toLowerCase(Locale.ROOT);
            switch (login) {
                case "password" -> {
                }
                case "oauth2" -> grants.put(account, grant(account, prefix + "oauth2.", setting));
                default -> throw new IllegalStateException(prefix + "login: '" + login + "' is neither password nor oauth2");
            }
        }
        return grants;
    }

    private static OAuth2Grant grant(String account, String prefix, Settings setting) {
        OAuth2Grant.Kind kind = kind(prefix + "grant", setting);
        URI tokenUri = tokenUri(prefix + "token-url", setting);
        String clientId = required(prefix + "client-id", setting);
        Optional<String> secret = setting.optional(prefix + "client-secret");
        Path key = setting.optional(prefix + "private-key-file").map(Path::of).orElse(null);
        Path certificate = setting.optional(prefix + "certificate-file").map(Path::of).orElse(null);
        List<String> scopes = Arrays.stream(required(prefix + "scope", setting).split("[\\s,]+"))
                .filter(s -> !s.isEmpty()).toList();
        String subject = setting.optional(prefix + "subject").orElse(null);
        Path refreshTokens = setting.optional(prefix + "refresh-token-file").map(Path::of).orElse(null);
        if ((kind == OAuth2Grant.Kind.REFRESH_TOKEN) != (refreshTokens != null)) {
            throw new IllegalStateException(prefix + "refresh-token-file: the refresh-token grant needs it, the others"
                    + " take none");
        }
        OAuth2Grant.ClientAuth auth;
        if (kind == OAuth2Grant.Kind.REFRESH_TOKEN) {
            if (subject != null) {
                throw new IllegalStateException(prefix + "subject: only the jwt-bearer grant acts for a subject");
            }
            if (secret.isPresent() && key != null) {
                throw new IllegalStateException(prefix + "client-secret, " + prefix + "private-key-file: a client"
                        + " authenticates with one of them, not both");
            }
            requireWritable(prefix + "refresh-token-file", refreshTokens);
            auth = key != null ? OAuth2Grant.ClientAuth.PRIVATE_KEY_JWT : secret.isPresent()
                    ? clientAuth(prefix + "client-auth", setting) : OAuth2Grant.ClientAuth.NONE;
        } else if (kind == OAuth2Grant.Kind.JWT_BEARER) {
            if (key == null || subject == null || secret.isPresent()) {
                throw new IllegalStateException(prefix + "grant: jwt-bearer needs " + prefix + "private-key-file and "
                        + prefix + "subject, and no client-secret");
            }
            auth = OAuth2Grant.ClientAuth.NONE;
        } else {
            if (secret.isPresent() == (key != null)) {
                throw new IllegalStateException(prefix + "client-secret, " + prefix + "private-key-file: client"
                        + " credentials need exactly one of them");
            }
            auth = key != null ? OAuth2Grant.ClientAuth.PRIVATE_KEY_JWT : clientAuth(prefix + "client-auth", setting);
        }
        try {
            if (key != null) {
                KeyFiles.privateKey(key);
            }
            if (certificate != null) {
                KeyFiles.thumbprint(certificate);
            }
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(prefix + (certificate != null && key == null ? "certificate-file" : "private-key-file")
                    + ": " + e.getMessage(), e);
        }
        return new OAuth2Grant(account, kind, tokenUri, clientId, secret.orElse(null), key,
                setting.optional(prefix + "key-id").orElse(null), certificate, scopes, subject, auth, refreshTokens);
    }

    /**
     * @param source the value of a named setting
     * @return how long before its expiry a token is renewed
     * @throws IllegalStateException naming {@value #RENEW_BEFORE} when it is not a whole number of 0 to 3,600,000
     */
    public static Duration renewBefore(Function<String, Optional<String>> source) {
        return Duration.ofMillis(Settings.of(source).whole(RENEW_BEFORE, 0, 3_600_000, 300_000));
    }

    /**
     * @param source the value of a named setting
     * @return the connect and read timeout of a token request
     * @throws IllegalStateException naming {@value #TIMEOUT} when it is not a whole number of 1,000 to 120,000
     */
    public static Duration timeout(Function<String, Optional<String>> source) {
        return Duration.ofMillis(Settings.of(source).whole(TIMEOUT, 1_000, 120_000, 10_000));
    }

    /**
     * @throws IllegalStateException naming the setting when the file cannot be read, or its folder not written (a
     *                               rotated refresh token is written next to it and moved over it)
     */
    private static void requireWritable(String name, Path file) {
        Path folder = file.toAbsolutePath().getParent();
        if (!java.nio.file.Files.isReadable(file) || folder == null || !java.nio.file.Files.isWritable(folder)) {
            throw new IllegalStateException(name + ": " + file + " must be a readable file in a folder the server may"
                    + " write to (a rotated refresh token replaces it)");
        }
    }

    private static String required(String name, Settings setting) {
        return setting.optional(name).orElseThrow(() -> new IllegalStateException(name + " is not set"));
    }

    private static OAuth2Grant.Kind kind(String name, Settings setting) {
        String value = setting.optional(name).orElse(OAuth2Grant.Kind.CLIENT_CREDENTIALS.setting());
        for (OAuth2Grant.Kind kind : OAuth2Grant.Kind.values()) {
            if (kind.setting().equals(value)) {
                return kind;
            }
        }
        throw new IllegalStateException(name + ": '" + value + "' is none of client-credentials, jwt-bearer, refresh-token");
    }

    private static OAuth2Grant.ClientAuth clientAuth(String name, Settings setting) {
        String value = setting.optional(name).orElse("basic");
        return switch (value) {
            case "basic" -> OAuth2Grant.ClientAuth.CLIENT_SECRET_BASIC;
            case "post" -> OAuth2Grant.ClientAuth.CLIENT_SECRET_POST;
            default -> throw new IllegalStateException(name + ": '" + value + "' is neither basic nor post");
        };
    }

    /** @throws IllegalStateException naming the setting when the URL is unset, malformed, or plain http off loopback */
    private static URI tokenUri(String name, Settings setting) {
        return Settings.secureUrl(name, required(name, setting), "the request carries the client's secret or assertion");
    }
}
