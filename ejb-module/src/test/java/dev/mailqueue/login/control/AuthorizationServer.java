package dev.mailqueue.login.control;

import no.nav.security.mock.oauth2.MockOAuth2Server;
import no.nav.security.mock.oauth2.OAuth2Config;
import no.nav.security.mock.oauth2.token.DefaultOAuth2TokenCallback;
import no.nav.security.mock.oauth2.token.OAuth2TokenProvider;
import okhttp3.mockwebserver.RecordedRequest;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * A real OAuth2 authorization server for the token tests (NAV's mock-oauth2-server, in this JVM on a free port): it
 * issues signed JWT access tokens for the client-credentials and JWT-bearer grants with the lifetime asked for, and
 * records the requests it took, so that a test can read what the queue sent.
 */
final class AuthorizationServer implements AutoCloseable {

    private final MockOAuth2Server server;

    /** @param lifetimeSeconds lifetime of every token it issues ({@code expires_in}) */
    AuthorizationServer(int lifetimeSeconds) {
        this(lifetimeSeconds, false);
    }

    /**
     * @param lifetimeSeconds lifetime of every token it issues ({@code expires_in})
     * @param rotate          true when each refresh-token grant answers with a new refresh token
     */
    AuthorizationServer(int lifetimeSeconds, boolean rotate) {
        server = new MockOAuth2Server(new OAuth2Config(false, null, null, rotate, new OAuth2TokenProvider(),
                Set.of(new DefaultOAuth2TokenCallback("queue", "it-client", "JWT", List.of("smtp"), Map.of(),
                        lifetimeSeconds))));
        server.start();
    }

    /** @return the token endpoint of issuer {@code queue} */
    URI tokenUri() {
        return server.tokenEndpointUrl("queue").uri();
    }

    /** @return the requests taken since the last call, oldest first, waiting at most 200 ms for each */
    List<RecordedRequest> requests() {
        List<RecordedRequest> taken = new ArrayList<>();
        while (true) {
            try {
                taken.add(server.takeRequest(200, TimeUnit.MILLISECONDS));
            } catch (RuntimeException none) { // mock-oauth2-server's answer to an empty queue after the wait
                return taken;
            }
        }
    }

    @Override
    public void close() {
        server.shutdown();
    }
}
