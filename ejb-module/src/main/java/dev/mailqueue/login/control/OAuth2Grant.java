package dev.mailqueue.login.control;

import java.net.URI;
import java.nio.file.Path;
import java.util.List;

/**
 * How one account gets its OAuth2 access tokens: the grant, the authorization server's token endpoint and the
 * client's credentials, as {@link LoginSettings} read them. The secret and the private key stay out of
 * {@link #toString()}.
 *
 * @param account      the account's name
 * @param grant        the grant type
 * @param tokenUri     the token endpoint (RFC 6749 §3.2): {@code https}, or {@code http} on a loopback host only
 * @param clientId     the client's identifier (Entra: the application id; Google: the service account's e-mail
 *                     address, the assertion's issuer)
 * @param clientSecret the client secret (RFC 6749 §2.3.1), or null when the client proves itself with a key
 * @param privateKey   a PKCS#8 PEM file of the client's RSA or EC private key: it signs the client assertion
 *                     (RFC 7523 §2.2) or the grant's assertion (RFC 7523 §2.1); null with a client secret
 * @param keyId        the key's id, written as the JWS {@code kid} header (Google: {@code private_key_id}); may be null
 * @param certificate  a PEM file of the key's X.509 certificate, whose SHA-256 thumbprint is written as the JWS
 *                     {@code x5t#S256} header (Microsoft Entra's certificate credentials); may be null
 * @param scopes       the scopes asked for, 1 or more (Microsoft 365 SMTP: {@code https://outlook.office365.com/.default};
 *                     Gmail: {@code https://mail.google.com/})
 * @param subject      the user the JWT bearer grant acts for (Google's domain-wide delegation: the mailbox); null for
 *                     client credentials
 * @param clientAuth   how the token request authenticates the client
 * @param refreshTokens where the refresh token of a refresh-token grant is kept ({@link RefreshTokenFile}); null for
 *                      the other grants
 */
public record OAuth2Grant(String account, Kind grant, URI tokenUri, String clientId, String clientSecret,
                          Path privateKey, String keyId, Path certificate, List<String> scopes, String subject,
                          ClientAuth clientAuth, Path refreshTokens) {

    public OAuth2Grant {
        scopes = List.copyOf(scopes);
    }

    /** A grant without a refresh token: client credentials or JWT bearer. */
    public OAuth2Grant(String account, Kind grant, URI tokenUri, String clientId, String clientSecret, Path privateKey,
                       String keyId, Path certificate, List<String> scopes, String subject, ClientAuth clientAuth) {
        this(account, grant, tokenUri, clientId, clientSecret, privateKey, keyId, certificate, scopes, subject,
                clientAuth, null);
    }

    /** The grant types the queue speaks. */
    public enum Kind {
        /** RFC 6749 §4.4: the application's own identity (Microsoft Entra ID, most servers). */
        CLIENT_CREDENTIALS("client-credentials"),
        /** RFC 7523 §2.1: a JWT signed by the client stands for the grant (Google service accounts). */
        JWT_BEARER("jwt-bearer"),
        /**
         * RFC 6749 §6: a refresh token a person's consent once gave, for an account with no application identity;
         * a rotated refresh token replaces the old one where it is kept.
         */
        REFRESH_TOKEN("refresh-token");

        private final String setting;

        Kind(String setting) {
            this.setting = setting;
        }

        /** @return the word the settings and the console use, e.g. {@code client-credentials} */
        public String setting() {
            return setting;
        }
    }

    /** How the client authenticates at the token endpoint. */
    public enum ClientAuth {
        /** RFC 6749 §2.3.1: HTTP Basic with the client id and secret (every server must take it). */
        CLIENT_SECRET_BASIC,
        /** RFC 6749 §2.3.1: the client id and secret in the request body. */
        CLIENT_SECRET_POST,
        /** RFC 7523 §2.2 (OpenID Connect's {@code private_key_jwt}): a JWT signed with the private key. */
        PRIVATE_KEY_JWT,
        /**
         * No client authentication: the grant's own assertion identifies the client (RFC 7523 §3.1), or a public
         * client's refresh token names it ({@code client_id} in the body, RFC 6749 §6).
         */
        NONE
    }

    @Override
    public String toString() {
        return "OAuth2Grant[account=" + account + ", grant=" + grant.setting() + ", tokenUri=" + tokenUri
                + ", clientId=" + clientId + ", clientAuth=" + clientAuth + ", scopes=" + scopes
                + (refreshTokens == null ? "" : ", refreshTokens=" + refreshTokens) + "]";
    }
}
