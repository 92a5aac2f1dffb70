package dev.mailqueue.login.control;

import java.time.Duration;
import java.time.Instant;

/**
 * An access token as the authorization server issued it. Its value stays out of {@link #toString()}.
 *
 * @param value     the token (RFC 6749 §5.1 {@code access_token}), given to the relay as the XOAUTH2 password
 * @param issuedAt  when this side received it
 * @param expiresAt when it expires: {@code issuedAt} plus {@code expires_in}, or plus {@link #ASSUMED_LIFETIME}
 *                  when the server did not say (the field is only RECOMMENDED)
 */
public record IssuedToken(String value, Instant issuedAt, Instant expiresAt) {

    /** The lifetime assumed when a server leaves {@code expires_in} out: short, since a refused token is renewed anyway. */
    public static final Duration ASSUMED_LIFETIME = Duration.ofMinutes(5);

    /**
     * @param renewBefore the renewal margin ({@link LoginSettings#renewBefore})
     * @return when the token should be replaced: {@code renewBefore} ahead of its expiry, or at half its life when
     *         it lives less than twice the margin
     */
    public Instant renewAt(Duration renewBefore) {
        Duration life = Duration.between(issuedAt, expiresAt);
        Duration margin = life.compareTo(renewBefore.multipliedBy(2)) < 0 ? life.dividedBy(2) : renewBefore;
        return expiresAt.minus(margin);
    }

    @Override
    public String toString() {
        return "IssuedToken[issuedAt=" + issuedAt + ", expiresAt=" + expiresAt + "]";
    }
}
