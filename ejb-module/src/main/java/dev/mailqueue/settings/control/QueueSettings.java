package dev.mailqueue.settings.control;

import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Duration;
import java.util.function.Function;

/**
 * The queue's settings, read once through MicroProfile Config and checked. Their defaults are written
 * once, in {@code META-INF/microprofile-config.properties} of the EJB module; an environment variable,
 * a system property or a server variable overrides them. A value out of range stops the application at
 * start with an {@link IllegalStateException} naming the property, so a typo never runs silently.
 */
@ApplicationScoped
public class QueueSettings {

    private long intervalMillis;
    private int claimers;
    private int batchSize;
    private long leaseMillis;
    private int chunkTimeLimitSeconds;
    private int chunkTransactionTimeoutSeconds;
    private long recordWaitMillis;
    private long commitDelayMicros;
    private boolean wakeUp;
    private boolean rateCaps;
    private long coolDownMillis;
    private RetryPolicy retryPolicy;
    private long maxLifetimeMillis;
    private InDoubtPolicy inDoubt;
    private boolean retentionEnabled;
    private int retentionDays;
    private int retentionContentDays;
    private String retentionSchedule;
    private int retentionChunkSize;
    private long searchTimeoutMillis;
    private String bounceMailbox;
    private long bounceIntervalMillis;
    private String bounceFolder;
    private int bounceChunkSize;
    private SoftBounceRule softBounces;
    private ReportLimits bounceLimits;
    private String bounceQuarantineFolder;
    private String instance;
    private DeliveryMode deliveryMode;
    private String redirectTo;

    @PostConstruct
    void read() {
        read(Settings.fromConfig(QueueSettings.class));
    }

    /**
     * @param config a source of raw values by property name (null when unset); in tests a map
     * @return settings read from it
     * @throws IllegalStateException naming the property when a value is missing or out of range
     */
    public static QueueSettings of(Function<String, String> config) {
        QueueSettings settings = new QueueSettings();
        settings.read(Settings.of(name -> java.util.Optional.ofNullable(config.apply(name))));
        return settings;
    }

    private void read(Settings r) {
        intervalMillis = r.whole("mailqueue.dispatch.interval.ms", 100, Long.MAX_VALUE);
        claimers = (int) r.whole("mailqueue.dispatch.claimers", 0, 64);
        batchSize = (int) r.whole("mailqueue.dispatch.batch-size", 1, 1000);
        leaseMillis = r.whole("mailqueue.dispatch.lease.ms", 3000, Long.MAX_VALUE);
        chunkTimeLimitSeconds = (int) r.whole("mailqueue.dispatch.chunk.time-limit.s", 1, 3600);
        chunkTransactionTimeoutSeconds = (int) r.whole("mailqueue.dispatch.chunk.transaction-timeout.s",
                chunkTimeLimitSeconds + 1L, Integer.MAX_VALUE);
        recordWaitMillis = r.whole("mailqueue.dispatch.record-wait.ms", 100, 600_000);
        commitDelayMicros = r.whole("mailqueue.dispatch.commit-delay.us", 0, 100_000);
        wakeUp = r.bool("mailqueue.dispatch.wake-up");
        rateCaps = r.bool("mailqueue.dispatch.rate-caps");
        coolDownMillis = r.whole("mailqueue.smtp.cool-down.ms", 100, Long.MAX_VALUE);
        long backoffMin = r.whole("mailqueue.delivery.backoff.min.ms", 0, Long.MAX_VALUE);
        long backoffMax = r.whole("mailqueue.delivery.backoff.max.ms", backoffMin, Long.MAX_VALUE);
        double jitter = r.fraction("mailqueue.delivery.backoff.jitter");
        int maxAttempts = (int) r.whole("mailqueue.delivery.max-attempts", 1, Integer.MAX_VALUE);
        retryPolicy = new RetryPolicy(backoffMin, backoffMax, jitter, maxAttempts);
        maxLifetimeMillis = r.whole("mailqueue.delivery.max-lifetime.ms", 0, Long.MAX_VALUE);
        inDoubt = r.choice("mailqueue.delivery.in-doubt", InDoubtPolicy.class);
        retentionEnabled = r.bool("mailqueue.retention.enabled");
        retentionDays = (int) r.whole("mailqueue.retention.days", 1, 36_500);
        retentionContentDays = (int) r.whole("mailqueue.retention.content-days", 1, 36_500, retentionDays);
        retentionSchedule = r.text("mailqueue.retention.schedule");
        retentionChunkSize = (int) r.whole("mailqueue.retention.chunk-size", 1, 1000);
        searchTimeoutMillis = r.whole("mailqueue.admin.search-timeout.ms", 0, 3_600_000);
        bounceMailbox = r.text("mailqueue.bounce.mailbox");
        bounceIntervalMillis = r.whole("mailqueue.bounce.interval.ms", 1000, Long.MAX_VALUE);
        bounceFolder = r.text("mailqueue.bounce.folder");
        bounceChunkSize = (int) r.whole("mailqueue.bounce.chunk-size", 1, 1000);
        softBounces = new SoftBounceRule((int) r.whole("mailqueue.bounce.soft-limit", 0, 1000),
                Duration.ofDays(r.whole("mailqueue.bounce.soft-window.days", 1, 365)));
        bounceLimits = new ReportLimits((int) r.whole("mailqueue.bounce.max-message-bytes", 16_384, 64 << 20),
                (int) r.whole("mailqueue.bounce.max-parts", 3, 10_000),
                (int) r.whole("mailqueue.bounce.max-depth", 2, 100),
                (int) r.whole("mailqueue.bounce.max-recipients", 1, 1_000));
        bounceQuarantineFolder = r.text("mailqueue.bounce.quarantine-folder");
        deliveryMode = r.choice("mailqueue.delivery.mode", DeliveryMode.class);
        redirectTo = redirectAddress(r.optional("mailqueue.delivery.redirect-to").orElse(null), deliveryMode);
        instance = r.optional("mailqueue.instance").orElse("mailqueue");
    }

    /**
     * @return the address a REDIRECT server sends every mail to, bare and ASCII; null in another mode
     * @throws IllegalStateException naming {@code mailqueue.delivery.redirect-to} when the mode is REDIRECT
     *                               and it is unset or not one plain address
     */
    private static String redirectAddress(String value, DeliveryMode mode) {
        if (mode != DeliveryMode.REDIRECT) {
            return null;
        }
        String name = "mailqueue.delivery.redirect-to";
        if (value == null || value.isBlank()) {
            throw new IllegalStateException("configuration mailqueue.delivery.mode=redirect needs " + name
                    + ", the address every mail goes to instead of its recipients");
        }
        try {
            jakarta.mail.internet.InternetAddress address = new jakarta.mail.internet.InternetAddress(value.strip(), true);
            if (address.getPersonal() != null || !java.nio.charset.StandardCharsets.US_ASCII.newEncoder()
                    .canEncode(address.getAddress())) {
                throw new jakarta.mail.internet.AddressException("must be a bare ASCII address such as qa@example.com");
            }
            return address.getAddress();
        } catch (jakarta.mail.internet.AddressException e) {
            throw new IllegalStateException("configuration " + name + " is not a usable address ('" + value + "'): "
                    + e.getMessage(), e);
        }
    }

    /** @return what this server does with the mails it claims ({@code mailqueue.delivery.mode}) */
    public DeliveryMode deliveryMode() {
        return deliveryMode;
    }

    /** @return the address every mail goes to in REDIRECT mode, bare; null in LIVE and SANDBOX mode */
    public String redirectTo() {
        return redirectTo;
    }

    /**
     * @return how long the dispatch journal holds a group of outcomes for the other claimers that are sending before
     *         it commits the group, in µs, 0 to 100,000 ({@code mailqueue.dispatch.commit-delay.us}; 0: never). It
     *         holds a group only while fewer claimers have submitted to it than submitted anything in the last ten
     *         such delays, and never a submission longer than this after it was made. Fewer, larger commits cost the
     *         database less CPU a mail (PostgreSQL: about 0.3 ms a commit against 0.02 ms a mail on the benchmark's
     *         machine, BENCHMARKS-history.md, "The journal's commit delay"); each mail's end of DATA may wait this
     *         much longer. Named after PostgreSQL's {@code commit_delay}, which does the same for WAL flushes.
     */
    public Duration commitDelay() {
        return Duration.ofNanos(commitDelayMicros * 1000);
    }

    /** @return the dispatch timer's interval in ms, 100 or more ({@code mailqueue.dispatch.interval.ms}) */
    public long intervalMillis() {
        return intervalMillis;
    }

    /**
     * @return the most claimers (dispatch job executions) this server runs at once, 0 to 64
     *         ({@code mailqueue.dispatch.claimers}); 0 makes a server that only takes mail in and leaves sending
     *         to the other servers of the queue
     */
    public int claimers() {
        return claimers;
    }

    /** @return mails a claim leases at a time, and items per chunk, 1 to 1,000 ({@code mailqueue.dispatch.batch-size}) */
    public int batchSize() {
        return batchSize;
    }

    /**
     * @return the lease time in ms, 3,000 or more ({@code mailqueue.dispatch.lease.ms}): a live claimer renews its leases
     *         every third of it, so a lease runs out only when its claimer has died
     */
    public long leaseMillis() {
        return leaseMillis;
    }

    /** @return how often a live claimer renews its leases: a third of the lease time */
    public Duration leaseRenewal() {
        return Duration.ofMillis(leaseMillis / 3);
    }

    /** @return the longest a chunk runs before its checkpoint, seconds, 1 to 3,600 ({@code mailqueue.dispatch.chunk.time-limit.s}) */
    public int chunkTimeLimitSeconds() {
        return chunkTimeLimitSeconds;
    }

    /**
     * @return the timeout of the chunk's JTA transaction in seconds, more than the chunk time limit
     *         ({@code mailqueue.dispatch.chunk.transaction-timeout.s}). The chunk transaction holds no database work of the queue; this only keeps
     *         the batch container from failing a chunk whose last SMTP transaction was slow.
     */
    public int chunkTransactionTimeoutSeconds() {
        return chunkTransactionTimeoutSeconds;
    }

    /**
     * @return how long a claimer waits, at the end of a mail's DATA, for the outcome of its mail before to be
     *         committed before it gives the mail up unsent, ms, 100 to 600,000 ({@code mailqueue.dispatch.record-wait.ms})
     */
    public long recordWaitMillis() {
        return recordWaitMillis;
    }

    /** @return how long an unreachable SMTP account is left alone before it is tried again, ms ({@code mailqueue.smtp.cool-down.ms}) */
    public long coolDownMillis() {
        return coolDownMillis;
    }

    /** @return backoff, jitter and attempts of the delivery policy */
    public RetryPolicy retryPolicy() {
        return retryPolicy;
    }

    /** @return the attempts a mail is queued (and requeued) with, 1 or more ({@code mailqueue.delivery.max-attempts}) */
    public int maxAttempts() {
        return retryPolicy.maxAttempts();
    }

    /** @return the longest a mail may stay unsent, ms; 0 means no limit ({@code mailqueue.delivery.max-lifetime.ms}) */
    public long maxLifetimeMillis() {
        return maxLifetimeMillis;
    }

    /** @return what becomes of a mail whose send is in doubt ({@code mailqueue.delivery.in-doubt}) */
    public InDoubtPolicy inDoubt() {
        return inDoubt;
    }

    /**
     * @return whether, on PostgreSQL, this server announces its enqueues to the other servers and listens for
     *         theirs ({@code mailqueue.dispatch.wake-up}); without it the others find the mail at their next tick
     */
    public boolean wakeUp() {
        return wakeUp;
    }

    /**
     * @return whether each claim first reads the free send slots of every rate-limited account (one query per such
     *         account and claim) and takes no more of an account's mail than it may send now
     *         ({@code mailqueue.dispatch.rate-caps}); without it a claim takes their mail uncapped, and what the
     *         limit refuses at send is handed back and claimed again when a slot should be free
     */
    public boolean rateCaps() {
        return rateCaps;
    }

    /** @return whether this server runs the retention job ({@code mailqueue.retention.enabled}) */
    public boolean retentionEnabled() {
        return retentionEnabled;
    }

    /** @return days a finished mail is kept, 1 to 36,500 ({@code mailqueue.retention.days}) */
    public int retentionDays() {
        return retentionDays;
    }

    /**
     * @return days a finished mail keeps its content (bodies, attachments, raw bytes), 1 to 36,500
     *         ({@code mailqueue.retention.content-days}; absent: {@link #retentionDays()}). Only a value below
     *         {@link #retentionDays()} removes anything before the mail itself goes.
     */
    public int retentionContentDays() {
        return retentionContentDays;
    }

    /** @return when the retention job runs: six EJB calendar fields ({@code mailqueue.retention.schedule}) */
    public String retentionSchedule() {
        return retentionSchedule;
    }

    /** @return mails the retention job deletes per transaction, 1 to 1,000 ({@code mailqueue.retention.chunk-size}) */
    public int retentionChunkSize() {
        return retentionChunkSize;
    }

    /**
     * @return ms a search of mails (the console's, {@code GET /api/admin/mails}) may run before the database stops
     *         it, 0 to 3,600,000; 0 for no limit but the transaction's ({@code mailqueue.admin.search-timeout.ms}).
     *         The database counts in whole seconds: a limit is rounded up to one
     */
    public long searchTimeoutMillis() {
        return searchTimeoutMillis;
    }

    /**
     * @return the JNDI name of the bounce mailbox's mail session, a {@code <mailSession>} with a store
     *         protocol ({@code mailqueue.bounce.mailbox}); the bounce intake runs only when it is bound
     */
    public String bounceMailbox() {
        return bounceMailbox;
    }

    /** @return how often the bounce mailbox is read, ms, 1,000 or more ({@code mailqueue.bounce.interval.ms}) */
    public long bounceIntervalMillis() {
        return bounceIntervalMillis;
    }

    /** @return the folder of the bounce mailbox that holds the reports ({@code mailqueue.bounce.folder}; POP3 has only INBOX) */
    public String bounceFolder() {
        return bounceFolder;
    }

    /** @return reports the bounce intake records per chunk, 1 to 1,000 ({@code mailqueue.bounce.chunk-size}) */
    public int bounceChunkSize() {
        return bounceChunkSize;
    }

    /**
     * @return what one message of the bounce mailbox may cost: {@code mailqueue.bounce.max-message-bytes},
     *         {@code .max-parts}, {@code .max-depth} and {@code .max-recipients} (ranges in {@link ReportLimits})
     */
    public ReportLimits bounceLimits() {
        return bounceLimits;
    }

    /**
     * @return the folder of the bounce mailbox where a message goes whose report cannot be recorded at all
     *         ({@code mailqueue.bounce.quarantine-folder}); created when missing; IMAP only
     */
    public String bounceQuarantineFolder() {
        return bounceQuarantineFolder;
    }

    /** @return when soft bounces suppress an address ({@code mailqueue.bounce.soft-limit} within {@code mailqueue.bounce.soft-window.days}) */
    public SoftBounceRule softBounces() {
        return softBounces;
    }

    /**
     * @return this server's configured name (without host), as leases and the attempt log show it:
     *         {@code mailqueue.instance}, which Liberty's server.xml sets to the server's name by default
     *         (a server variable's default sits below the application's properties, so the application
     *         writes no default of its own), else {@code mailqueue}
     */
    public String instance() {
        return instance;
    }
}
