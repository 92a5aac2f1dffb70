package dev.mailqueue.login.boundary;

import dev.mailqueue.login.control.LoginState;

import java.time.Instant;
import java.util.Optional;

/**
 * How an SMTP account logs in on this server, as the admin API and the console show it: never a token or a secret.
 *
 * @param kind           {@code password}, {@code oauth2}, or {@code aws-sigv4} (an Amazon SES account: each request signed
 *                       with the account's AWS credentials)
 * @param grant          the OAuth2 grant type, e.g. {@code client-credentials}; null for a password account
 * @param tokenUrl       the token endpoint; null for a password account
 * @param tokenExpiresAt when the token in use expires; null while there is none
 * @param renewedAt      when a token was last received; null before the first
 * @param renewals       tokens received since the server started, 0 or more
 * @param refusals       tokens the relay refused since the server started
 * @param lastError      why the last token request failed (the grant, the endpoint, the server's error); null when it
 *                       succeeded or none was made
 * @param lastErrorAt    when; null with {@code lastError}
 */
public record LoginView(String kind, String grant, String tokenUrl, Instant tokenExpiresAt, Instant renewedAt,
                        long renewals, long refusals, String lastError, Instant lastErrorAt) {

    /** A password account's login. */
    public static final LoginView PASSWORD = new LoginView("password", null, null, null, null, 0, 0, null, null);

    /** An Amazon SES account's: no login, each request signed (AWS Signature Version 4). */
    public static final LoginView AWS_SIGV4 = new LoginView("aws-sigv4", null, null, null, null, 0, 0, null, null);

    /**
     * @param state an account's OAuth2 login state, empty for a password account
     * @return its view
     */
    public static LoginView of(Optional<LoginState> state) {
        return state.map(s -> new LoginView("oauth2", s.grant(), s.tokenUri(), s.tokenExpiresAt(), s.renewedAt(),
                s.renewals(), s.refusals(), s.lastError(), s.lastErrorAt())).orElse(PASSWORD);
    }
}
