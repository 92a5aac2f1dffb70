package dev.mailqueue.login.control;

import java.time.Instant;

/**
 * What the console and readiness show of an OAuth2 account's login on this server; never a token or a secret.
 *
 * @param grant          the grant type, e.g. {@code client-credentials}
 * @param tokenUri       the token endpoint
 * @param tokenExpiresAt when the token in use expires; null while the account has none
 * @param renewedAt      when a token was last received; null before the first
 * @param renewals       tokens received since the server started, 0 or more
 * @param refusals       tokens the relay refused since the server started (each followed by one renewal)
 * @param lastError      why the last token request failed, naming the grant and the server's error; null when the
 *                       last request succeeded or none was made
 * @param lastErrorAt    when it failed; null with {@code lastError}
 */
public record LoginState(String grant, String tokenUri, Instant tokenExpiresAt, Instant renewedAt, long renewals,
                         long refusals, String lastError, Instant lastErrorAt) {
}
