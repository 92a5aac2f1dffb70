package dev.mailqueue.dispatch.control;

import jakarta.enterprise.context.ApplicationScoped;

import java.time.Duration;
import java.time.Instant;

/**
 * When the dispatch timer last fired on this server, for the liveness check: a server whose timer
 * stopped firing sends nothing and should be restarted.
 */
@ApplicationScoped
public class DispatchHeartbeat {

    private final Instant started = Instant.now();
    private volatile Instant last;

    /** Called by the dispatch timer on every tick. */
    public void beat() {
        last = Instant.now();
    }

    /** @return time since the last tick, or since this server started when none came yet */
    public Duration silence() {
        Instant since = last == null ? started : last;
        return Duration.between(since, Instant.now());
    }
}
