package dev.mailqueue.dispatch.control;

import dev.mailqueue.account.control.AccountHealth;
import dev.mailqueue.metrics.control.Metrics;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.time.Duration;
import java.util.Map;
import java.util.function.Consumer;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The dispatcher's metrics, published through the server's metrics API ({@link Metrics}; on WildFly Micrometer,
 * on its management port, {@code /metrics}; on Open Liberty
 * MicroProfile Metrics, application scope, {@code /metrics?scope=application}):
 * <ul>
 *   <li>{@code mailqueue.mails.sent}, {@code mailqueue.mails.failed}: counters of attempts that the
 *       SMTP server accepted, and that failed (a mail that fails 3 times counts 3)</li>
 *   <li>{@code mailqueue.mails.claimed}: counter of mails claimed; above sent plus failed by the mails
 *       handed back unsent (a rate limit that refused, an account cooling down)</li>
 *   <li>{@code mailqueue.dispatch.rate}: mails sent per second, averaged over the last 60 seconds</li>
 *   <li>{@code mailqueue.claim.duration}: timer of one claim transaction (release expired leases, pick
 *       and lease up to a batch)</li>
 *   <li>{@code mailqueue.send.duration}: timer of one SMTP send (connect when needed, MAIL FROM to the
 *       reply to the end of DATA)</li>
 *   <li>{@code mailqueue.smtp.accounts.down}: SMTP accounts this server cannot reach now (cooling down
 *       after a failed connection); {@code mailqueue.smtp.account.outages}: how often an account went
 *       down since the server started</li>
 *   <li>{@code mailqueue.journal.unavailable}: 1 while the journal cannot write for want of the
 *       database (what claimers record is kept meanwhile), else 0</li>
 * </ul>
 * Counted on this server only; several servers sum up in the monitoring system.
 */
@ApplicationScoped
public class DispatchMetrics {

    /** Seconds the dispatch rate averages over. */
    static final int RATE_WINDOW_SECONDS = 60;

    @Inject
    Metrics registry;

    @Inject
    AccountHealth health;

    @Inject
    OutcomeJournal journal;

    private Runnable sent;
    private Runnable claimedMails;
    private Runnable failed;
    private Consumer<Duration> claims;
    private Consumer<Duration> sends;

    /** Mails sent per second of the epoch, in a ring of one slot per second of the window. */
    private final AtomicLongArray perSecond = new AtomicLongArray(RATE_WINDOW_SECONDS);
    private final AtomicLongArray slotSecond = new AtomicLongArray(RATE_WINDOW_SECONDS);

    @PostConstruct
    void register() {
        sent = registry.counter("mailqueue.mails.sent");
        claimedMails = registry.counter("mailqueue.mails.claimed");
        failed = registry.counter("mailqueue.mails.failed");
        claims = registry.timer("mailqueue.claim.duration");
        sends = registry.timer("mailqueue.send.duration");
        registry.gauge("mailqueue.dispatch.rate", Map.of(), this::ratePerSecond);
        registry.gauge("mailqueue.smtp.accounts.down", Map.of(), () -> health.down().size());
        registry.gauge("mailqueue.smtp.account.outages", Map.of(), health::outages);
        registry.gauge("mailqueue.journal.unavailable", Map.of(), () -> journal.unavailableSince() == null ? 0 : 1);
    }

    /**
     * @param elapsed how long one claim transaction took
     * @param mails   how many mails it claimed, 0 or more
     */
    public void claimed(Duration elapsed, int mails) {
        claims.accept(elapsed);
        for (int i = 0; i < mails; i++) {
            claimedMails.run();
        }
    }

    /**
     * @param elapsed how long one SMTP send took
     * @param ok      whether the server accepted the mail
     */
    public void sent(Duration elapsed, boolean ok) {
        sends.accept(elapsed);
        if (ok) {
            sent.run();
            long second = System.currentTimeMillis() / 1000;
            int slot = (int) (second % RATE_WINDOW_SECONDS);
            if (slotSecond.getAndSet(slot, second) != second) {
                perSecond.set(slot, 0); // the slot held an older second: start it afresh
            }
            perSecond.incrementAndGet(slot);
        } else {
            failed.run();
        }
    }

    /** @return mails sent per second over the last {@value #RATE_WINDOW_SECONDS} seconds */
    double ratePerSecond() {
        long now = System.currentTimeMillis() / 1000;
        long total = 0;
        for (int slot = 0; slot < RATE_WINDOW_SECONDS; slot++) {
            if (now - slotSecond.get(slot) < RATE_WINDOW_SECONDS) {
                total += perSecond.get(slot);
            }
        }
        return (double) total / RATE_WINDOW_SECONDS;
    }
}
