package dev.mailqueue.budget.control;

import dev.mailqueue.settings.control.Settings;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.Optional;

/**
 * The application's one budget of message bytes read and worked on at once ({@code mailqueue.http.max-inflight-bytes},
 * bytes, {@value BodyBudget#MIN_BYTES} to {@link BodyBudget#MAX_BYTES}), shared by every way a message comes in: the
 * web module's request guard charges each HTTP request body, and SMTP submission charges each DATA it buffers. One
 * bean per application, so both draw on the same {@link BodyBudget}; a share that does not come free within
 * {@code mailqueue.http.inflight-wait.ms} (ms, 0 to 3,600,000) is refused (503 over HTTP, 451 over SMTP).
 */
@ApplicationScoped
public class InflightBudget {

    private long maxBytes;
    private long waitMillis;
    private BodyBudget budget;

    /** Reads the settings (defaults: microprofile-config.properties) and stops the start on a bad one. */
    @PostConstruct
    void readConfiguration() {
        Settings settings = Settings.fromConfig(InflightBudget.class);
        maxBytes = settings.whole("mailqueue.http.max-inflight-bytes", BodyBudget.MIN_BYTES, BodyBudget.MAX_BYTES);
        waitMillis = settings.whole("mailqueue.http.inflight-wait.ms", 0, 3_600_000);
        budget = new BodyBudget(maxBytes);
    }

    /**
     * Takes a share for a body, waiting up to {@link #waitMillis()} for it.
     *
     * @param bytes the body's size, or the most it may be
     * @return the share (close it when the body is no longer held), or empty when none came free in time
     */
    public Optional<BodyBudget.Share> take(long bytes) {
        try {
            return budget.take(bytes, waitMillis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    /** @return the whole budget, bytes */
    public long maxBytes() {
        return maxBytes;
    }

    /** @return how long a body waits for its share, ms */
    public long waitMillis() {
        return waitMillis;
    }
}
