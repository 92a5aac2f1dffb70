package dev.mailqueue.login.control;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSSigner;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.util.Base64URL;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.nimbusds.oauth2.sdk.AuthorizationGrant;
import com.nimbusds.oauth2.sdk.ClientCredentialsGrant;
import com.nimbusds.oauth2.sdk.ErrorObject;
import com.nimbusds.oauth2.sdk.JWTBearerGrant;
import com.nimbusds.oauth2.sdk.ParseException;
import com.nimbusds.oauth2.sdk.RefreshTokenGrant;
import com.nimbusds.oauth2.sdk.Scope;
import com.nimbusds.oauth2.sdk.TokenRequest;
import com.nimbusds.oauth2.sdk.TokenResponse;
import com.nimbusds.oauth2.sdk.auth.ClientAuthentication;
import com.nimbusds.oauth2.sdk.auth.ClientSecretBasic;
import com.nimbusds.oauth2.sdk.auth.ClientSecretPost;
import com.nimbusds.oauth2.sdk.auth.PrivateKeyJWT;
import com.nimbusds.oauth2.sdk.auth.Secret;
import com.nimbusds.oauth2.sdk.http.HTTPRequest;
import com.nimbusds.oauth2.sdk.http.HTTPResponse;
import com.nimbusds.oauth2.sdk.id.ClientID;
import com.nimbusds.oauth2.sdk.token.AccessToken;
import com.nimbusds.oauth2.sdk.token.RefreshToken;
import com.nimbusds.oauth2.sdk.token.Tokens;
import dev.mailqueue.log.control.LogText;

import java.io.IOException;
import java.security.PrivateKey;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.RSAPrivateKey;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.UUID;

/**
 * One token request at an authorization server's token endpoint, done by the Nimbus OAuth 2.0 SDK: the client
 * credentials grant (RFC 6749 §4.4) with a client secret or a signed client assertion (RFC 7523 §2.2), the JWT
 * bearer grant (RFC 7523 §2.1) whose assertion names the user acted for (Google's domain-wide delegation), or the
 * refresh-token grant (RFC 6749 §6) with the token of a {@link RefreshTokenFile}, rotated there when the server
 * rotates it. Thread safe.
 */
public final class TokenEndpoint {

    /** Lifetime of the assertions signed here: Google takes at most one hour (its OAuth2 for service accounts). */
    static final Duration ASSERTION_LIFETIME = Duration.ofMinutes(60);

    private final Duration timeout;

    /** @param timeout connect and read timeout of a request ({@link LoginSettings#timeout}) */
    public TokenEndpoint(Duration timeout) {
        this.timeout = timeout;
    }

    /**
     * @param grant the account's grant
     * @return a new access token
     * @throws TokenException when the server refused the grant (its error code and description, at most
     *                        {@link LogText#MAX_CHARS} characters of it, and the HTTP status; {@code invalid_grant} for a
     *                        refresh token revoked or already used), could not be reached in time, or answered no
     *                        token response, or the refresh token file could not be read or written; the message
     *                        names the grant and the endpoint (or the file)
     */
    public IssuedToken request(OAuth2Grant grant) throws TokenException {
        String what = "OAuth2 " + grant.grant().setting() + " grant of client " + LogText.escape(grant.clientId())
                + " at " + grant.tokenUri();
        if (grant.grant() == OAuth2Grant.Kind.REFRESH_TOKEN) {
            return new RefreshTokenFile(grant.refreshTokens()).locked((refresh, replace) -> {
                Tokens tokens = send(what, () -> refreshRequest(grant, refresh));
                RefreshToken rotated = tokens.getRefreshToken();
                if (rotated != null && !rotated.getValue().equals(refresh)) {
                    replace.with(rotated.getValue()); // before the access token is used: the old one is void now
                }
                return issued(tokens);
            });
        }
        return issued(send(what, () -> tokenRequest(grant)));
    }

    /** A token request, made under the lock of whatever it needs. */
    @FunctionalInterface
    private interface RequestMaker {
        TokenRequest make() throws JOSEException;
    }

    private Tokens send(String what, RequestMaker maker) throws TokenException {
        HTTPRequest http;
        try {
            http = maker.make().toHTTPRequest();
        } catch (JOSEException | RuntimeException e) {
            throw new TokenException(what + ": cannot sign the assertion: " + LogText.escape(e.getMessage()), e);
        }
        http.setConnectTimeout((int) timeout.toMillis());
        http.setReadTimeout((int) timeout.toMillis());
        HTTPResponse answer;
        try {
            answer = http.send();
        } catch (IOException e) {
            throw new TokenException(what + ": the server could not be reached: " + LogText.escape(e.toString()), e);
        }
        TokenResponse response;
        try {
            response = TokenResponse.parse(answer);
        } catch (ParseException e) {
            throw new TokenException(what + ": HTTP " + answer.getStatusCode() + " with no OAuth2 token response ("
                    + LogText.escape(e.getMessage()) + ")");
        }
        if (!response.indicatesSuccess()) {
            ErrorObject error = response.toErrorResponse().getErrorObject();
            throw new TokenException(what + ": refused with " + LogText.escape(error.getCode())
                    + (error.getDescription() == null ? "" : " (" + LogText.escape(error.getDescription()) + ")")
                    + ", HTTP " + answer.getStatusCode());
        }
        return response.toSuccessResponse().getTokens();
    }

    private static IssuedToken issued(Tokens tokens) {
        Instant received = Instant.now();
        AccessToken token = tokens.getAccessToken();
        Duration lifetime = token.getLifetime() > 0 ? Duration.ofSeconds(token.getLifetime()) : IssuedToken.ASSUMED_LIFETIME;
        return new IssuedToken(token.getValue(), received, received.plus(lifetime));
    }

    /** RFC 6749 §6: the refresh token, the scopes, and the client's authentication (or its id, for a public client). */
    private static TokenRequest refreshRequest(OAuth2Grant grant, String refresh) throws JOSEException {
        Scope scope = new Scope(grant.scopes().toArray(String[]::new));
        RefreshTokenGrant refreshGrant = new RefreshTokenGrant(new RefreshToken(refresh));
        return grant.clientAuth() == OAuth2Grant.ClientAuth.NONE
                ? new TokenRequest(grant.tokenUri(), new ClientID(grant.clientId()), refreshGrant, scope)
                : new TokenRequest(grant.tokenUri(), clientAuth(grant), refreshGrant, scope);
    }

    private static TokenRequest tokenRequest(OAuth2Grant grant) throws JOSEException {
        Scope scope = new Scope(grant.scopes().toArray(String[]::new));
        if (grant.grant() == OAuth2Grant.Kind.JWT_BEARER) {
            return new TokenRequest(grant.tokenUri(), bearer(grant), scope);
        }
        AuthorizationGrant credentials = new ClientCredentialsGrant();
        return new TokenRequest(grant.tokenUri(), clientAuth(grant), credentials, scope);
    }

    private static ClientAuthentication clientAuth(OAuth2Grant grant) throws JOSEException {
        ClientID client = new ClientID(grant.clientId());
        return switch (grant.clientAuth()) {
            case CLIENT_SECRET_BASIC -> new ClientSecretBasic(client, new Secret(grant.clientSecret()));
            case CLIENT_SECRET_POST -> new ClientSecretPost(client, new Secret(grant.clientSecret()));
            case PRIVATE_KEY_JWT -> {
                PrivateKey key = KeyFiles.privateKey(grant.privateKey());
                yield new PrivateKeyJWT(client, grant.tokenUri(), algorithm(key), key, grant.keyId(), null,
                        grant.certificate() == null ? null : Base64URL.encode(KeyFiles.thumbprint(grant.certificate())), null);
            }
            case NONE -> throw new IllegalStateException("client credentials without client authentication");
        };
    }

    /** The RFC 7523 §2.1 assertion: issuer the client, subject the user acted for, audience the token endpoint. */
    private static JWTBearerGrant bearer(OAuth2Grant grant) throws JOSEException {
        PrivateKey key = KeyFiles.privateKey(grant.privateKey());
        Instant now = Instant.now();
        JWTClaimsSet claims = new JWTClaimsSet.Builder()
                .issuer(grant.clientId())
                .subject(grant.subject())
                .audience(grant.tokenUri().toString())
                .claim("scope", String.join(" ", grant.scopes()))
                .issueTime(Date.from(now))
                .expirationTime(Date.from(now.plus(ASSERTION_LIFETIME)))
                .jwtID(UUID.randomUUID().toString())
                .build();
        JWSHeader.Builder header = new JWSHeader.Builder(algorithm(key)).type(JOSEObjectType.JWT).keyID(grant.keyId());
        if (grant.certificate() != null) {
            header.x509CertSHA256Thumbprint(Base64URL.encode(KeyFiles.thumbprint(grant.certificate())));
        }
        SignedJWT assertion = new SignedJWT(header.build(), claims);
        JWSSigner signer = key instanceof RSAPrivateKey rsa ? new RSASSASigner(rsa) : new ECDSASigner((ECPrivateKey) key);
        assertion.sign(signer);
        return new JWTBearerGrant(assertion);
    }

    /** @return RS256 for an RSA key, ES256 for an EC key (P-256) */
    private static JWSAlgorithm algorithm(PrivateKey key) {
        return key instanceof RSAPrivateKey ? JWSAlgorithm.RS256 : JWSAlgorithm.ES256;
    }
}
