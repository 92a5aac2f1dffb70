package dev.mailqueue.it;

import no.nav.security.mock.oauth2.MockOAuth2Server;
import no.nav.security.mock.oauth2.OAuth2Config;
import no.nav.security.mock.oauth2.token.KeyProvider;
import no.nav.security.mock.oauth2.token.OAuth2TokenProvider;
import no.nav.security.mock.oauth2.token.RequestMapping;
import no.nav.security.mock.oauth2.token.RequestMappingTokenCallback;

import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The OAuth2 authorization server of the OAuth2 account tests: NAV's mock-oauth2-server, a real server that issues
 * signed JWT access tokens (client-credentials and JWT-bearer grants) and introspects them (RFC 7662), in the test JVM
 * on {@link #PORT}. Each start makes new signing keys, so that a restart revokes every token issued before it: the
 * introspection then answers {@code "active": false} for them.
 */
final class AuthorizationServer {

    /** Its port (property {@code it.oauth2.port}). */
    static final int PORT = Integer.getInteger("it.oauth2.port", 3139);
    /** The issuer whose token endpoint the test server's account {@code o365} uses. */
    static final String ISSUER = "queue";
    /**
     * The claim of each token that names the mailbox, checked against the SMTP login's user by Dovecot: the subject
     * (its introspection answers carry the registered claims only).
     */
    static final String MAILBOX_CLAIM = "sub";
    /** The scope an application asks Microsoft Graph's tokens with. */
    static final String GRAPH_SCOPE = "https://graph.microsoft.com/.default";
    /** The audience of the tokens asked for with {@link #GRAPH_SCOPE}. */
    static final String GRAPH_AUDIENCE = "https://graph.microsoft.com";

    private int lifetimeSeconds;
    private final String mailbox;
    private MockOAuth2Server server;

    /**
     * @param lifetimeSeconds lifetime of every token ({@code expires_in})
     * @param mailbox         the mailbox each token is for (claim {@value #MAILBOX_CLAIM})
     */
    AuthorizationServer(int lifetimeSeconds, String mailbox) {
        this.lifetimeSeconds = lifetimeSeconds;
        this.mailbox = mailbox;
    }

    /**
     * Starts it again with new signing keys, issuing tokens of another lifetime from now on.
     *
     * @param lifetime lifetime of every token from now on, in seconds
     */
    void restart(int lifetime) throws Exception {
        stop();
        lifetimeSeconds = lifetime;
        start();
    }

    /** Starts it with new signing keys. */
    void start() throws Exception {
        server = new MockOAuth2Server(new OAuth2Config(false, null, null, false,
                new OAuth2TokenProvider(new KeyProvider(List.of())),
                Set.of(new RequestMappingTokenCallback(ISSUER, List.of(
                        // a token asked for with Microsoft Graph's scope is for Graph, as Entra ID makes it
                        new RequestMapping("scope", GRAPH_SCOPE, Map.of(MAILBOX_CLAIM, mailbox, "aud",
                                List.of(GRAPH_AUDIENCE)), "JWT"),
                        new RequestMapping("grant_type", "*", Map.of(MAILBOX_CLAIM, mailbox, "aud", List.of("smtp")),
                                "JWT")), lifetimeSeconds))));
        server.start(InetAddress.getByName("127.0.0.1"), PORT);
    }

    /** Stops it; tokens it issued are refused from now on (by a restart, for good). */
    void stop() {
        if (server != null) {
            server.shutdown();
            server = null;
        }
    }

    /**
     * @return its introspection endpoint, with the HTTP Basic credentials it wants there (any; it checks that a
     *         client authenticated, not who) in the userinfo, as Dovecot's oauth2 passdb takes them
     */
    static String introspection() {
        return "http://dovecot:introspects@127.0.0.1:" + PORT + "/" + ISSUER + "/introspect";
    }
}
