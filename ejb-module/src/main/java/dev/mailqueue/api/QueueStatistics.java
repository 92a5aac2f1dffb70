package dev.mailqueue.api;

import java.io.Serializable;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The queue's numbers at one instant, as the statistics endpoint and the dashboard show them: mails
 * per status, mails sent and failed per hour over the last 24 hours, how long the longest-due queued
 * mail has waited, the most frequent failure reasons, and the same per SMTP account.
 */
public class QueueStatistics implements Serializable {

    private static final long serialVersionUID = 1L;

    private String generatedAt; // ISO-8601; the ORB cannot marshal java.time types on Java 17
    private LinkedHashMap<String, Long> countsByStatus = new LinkedHashMap<>();
    private ArrayList<Hour> hours = new ArrayList<>();
    private Long oldestQueuedSeconds;
    private ArrayList<Reason> topFailureReasons = new ArrayList<>();
    private ArrayList<Account> accounts = new ArrayList<>();
    private long inDoubtLast24h;
    private long bouncedLast24h;
    private long complainedLast24h;
    private LinkedHashMap<String, Long> suppressionsByReason = new LinkedHashMap<>();
    private ArrayList<String> pausedCampaigns = new ArrayList<>();
    private ArrayList<String> webhookEndpointsDisabled = new ArrayList<>();
    private long webhookDeliveriesPending;
    private boolean dispatchPaused;
    private ArrayList<String> pausedAccounts = new ArrayList<>();

    /** For JSON-B. */
    public QueueStatistics() {
    }

    /** @return when these numbers were read */
    public Instant getGeneratedAt() {
        return generatedAt == null ? null : Instant.parse(generatedAt);
    }

    public void setGeneratedAt(Instant generatedAt) {
        this.generatedAt = generatedAt == null ? null : generatedAt.toString();
    }

    /** @return mails per status, every {@link MailStatus} present (0 when none), in declaration order */
    public Map<String, Long> getCountsByStatus() {
        return countsByStatus;
    }

    public void setCountsByStatus(Map<String, Long> countsByStatus) {
        this.countsByStatus = new LinkedHashMap<>(countsByStatus);
    }

    /** @return 24 one-hour buckets, oldest first; the last one is the current, partial hour */
    public List<Hour> getHours() {
        return hours;
    }

    public void setHours(List<Hour> hours) {
        this.hours = new ArrayList<>(hours);
    }

    /**
     * @return seconds the QUEUED mail that has been due longest has waited since it became due: since it was enqueued
     *         for mail sent at once, since its not-before time or its retry time otherwise; null when no queued mail is
     *         due (mail scheduled for later does not count). The queue's lag: 0 to a few seconds while dispatch keeps up
     */
    public Long getOldestQueuedSeconds() {
        return oldestQueuedSeconds;
    }

    public void setOldestQueuedSeconds(Long oldestQueuedSeconds) {
        this.oldestQueuedSeconds = oldestQueuedSeconds;
    }

    /** @return the last errors of mails that ended FAILED in the last 24 hours, most frequent first */
    public List<Reason> getTopFailureReasons() {
        return topFailureReasons;
    }

    public void setTopFailureReasons(List<Reason> topFailureReasons) {
        this.topFailureReasons = new ArrayList<>(topFailureReasons);
    }

    /** @return the numbers per SMTP account the mails go through */
    public List<Account> getAccounts() {
        return accounts;
    }

    public void setAccounts(List<Account> accounts) {
        this.accounts = new ArrayList<>(accounts);
    }

    /**
     * @return attempts of the last 24 hours left in doubt: a worker's lease expired after it began sending,
     *         so the SMTP server may or may not have the mail (see the in-doubt policy)
     */
    public long getInDoubtLast24h() {
        return inDoubtLast24h;
    }

    public void setInDoubtLast24h(long inDoubtLast24h) {
        this.inDoubtLast24h = inDoubtLast24h;
    }

    /**
     * @return recipients reported BOUNCED by a Delivery Status Notification read from the bounce mailbox in
     *         the last 24 hours (attempt-log rows with outcome BOUNCED); refusals during SMTP are not counted here
     */
    public long getBouncedLast24h() {
        return bouncedLast24h;
    }

    public void setBouncedLast24h(long bouncedLast24h) {
        this.bouncedLast24h = bouncedLast24h;
    }

    /** @return recipients who reported a mail as spam (ARF complaints) in the last 24 hours */
    public long getComplainedLast24h() {
        return complainedLast24h;
    }

    public void setComplainedLast24h(long complainedLast24h) {
        this.complainedLast24h = complainedLast24h;
    }

    /**
     * @return entries of the suppression list per reason (HARD_BOUNCE, SOFT_BOUNCE, COMPLAINT, UNSUBSCRIBE,
     *         MANUAL), every reason present (0 when none), over all scopes
     */
    public Map<String, Long> getSuppressionsByReason() {
        return suppressionsByReason;
    }

    public void setSuppressionsByReason(Map<String, Long> suppressionsByReason) {
        this.suppressionsByReason = suppressionsByReason == null ? new LinkedHashMap<>() : new LinkedHashMap<>(suppressionsByReason);
    }

    /** @return the campaigns whose mail waits (paused), by name */
    public List<String> getPausedCampaigns() {
        return pausedCampaigns;
    }

    public void setPausedCampaigns(List<String> pausedCampaigns) {
        this.pausedCampaigns = pausedCampaigns == null ? new ArrayList<>() : new ArrayList<>(pausedCampaigns);
    }

    /** @return the webhook endpoints disabled for failing too long: nothing is sent to them until enabled */
    public List<String> getWebhookEndpointsDisabled() {
        return webhookEndpointsDisabled;
    }

    public void setWebhookEndpointsDisabled(List<String> webhookEndpointsDisabled) {
        this.webhookEndpointsDisabled = webhookEndpointsDisabled == null ? new ArrayList<>() : new ArrayList<>(webhookEndpointsDisabled);
    }

    /** @return webhook deliveries not yet made (waiting or backing off), over all endpoints */
    public long getWebhookDeliveriesPending() {
        return webhookDeliveriesPending;
    }

    public void setWebhookDeliveriesPending(long webhookDeliveriesPending) {
        this.webhookDeliveriesPending = webhookDeliveriesPending;
    }

    /** @return true while dispatch of the whole queue is paused (no server claims any mail) */
    public boolean isDispatchPaused() {
        return dispatchPaused;
    }

    public void setDispatchPaused(boolean dispatchPaused) {
        this.dispatchPaused = dispatchPaused;
    }

    /** @return the SMTP accounts whose dispatch is paused, by name */
    public List<String> getPausedAccounts() {
        return pausedAccounts;
    }

    public void setPausedAccounts(List<String> pausedAccounts) {
        this.pausedAccounts = pausedAccounts == null ? new ArrayList<>() : new ArrayList<>(pausedAccounts);
    }

    /** One hour of throughput: mails sent (SMTP 250) and mails that ended FAILED in it. */
    public static class Hour implements Serializable {

        private static final long serialVersionUID = 1L;

        private String start;
        private long sent;
        private long failed;

        /** For JSON-B. */
        public Hour() {
        }

        /**
         * @param start  the hour's first instant (UTC, whole hour)
         * @param sent   mails sent in it
         * @param failed mails whose last attempt failed in it and that ended FAILED
         */
        public Hour(Instant start, long sent, long failed) {
            this.start = start.toString();
            this.sent = sent;
            this.failed = failed;
        }

        public Instant getStart() {
            return start == null ? null : Instant.parse(start);
        }

        public void setStart(Instant start) {
            this.start = start == null ? null : start.toString();
        }

        public long getSent() {
            return sent;
        }

        public void setSent(long sent) {
            this.sent = sent;
        }

        public long getFailed() {
            return failed;
        }

        public void setFailed(long failed) {
            this.failed = failed;
        }
    }

    /** A failure reason (a mail's last error, as recorded) and how many mails ended with it. */
    public static class Reason implements Serializable {

        private static final long serialVersionUID = 1L;

        private String reason;
        private long count;

        /** For JSON-B. */
        public Reason() {
        }

        /**
         * @param reason the error text, at most 2,000 characters
         * @param count  mails that ended FAILED with it
         */
        public Reason(String reason, long count) {
            this.reason = reason;
            this.count = count;
        }

        public String getReason() {
            return reason;
        }

        public void setReason(String reason) {
            this.reason = reason;
        }

        public long getCount() {
            return count;
        }

        public void setCount(long count) {
            this.count = count;
        }
    }

    /** The numbers of one SMTP account: mails waiting for it, and sent and failed in the last 24 hours. */
    public static class Account implements Serializable {

        private static final long serialVersionUID = 1L;

        private String account;
        private long queued;
        private long sentLast24h;
        private long failedLast24h;
        private boolean paused;

        /** For JSON-B. */
        public Account() {
        }

        /**
         * @param account       the account's name
         * @param queued        mails QUEUED for it
         * @param sentLast24h   mails it sent in the last 24 hours
         * @param failedLast24h mails that ended FAILED on it in the last 24 hours
         */
        public Account(String account, long queued, long sentLast24h, long failedLast24h) {
            this.account = account;
            this.queued = queued;
            this.sentLast24h = sentLast24h;
            this.failedLast24h = failedLast24h;
        }

        public String getAccount() {
            return account;
        }

        public void setAccount(String account) {
            this.account = account;
        }

        public long getQueued() {
            return queued;
        }

        public void setQueued(long queued) {
            this.queued = queued;
        }

        public long getSentLast24h() {
            return sentLast24h;
        }

        public void setSentLast24h(long sentLast24h) {
            this.sentLast24h = sentLast24h;
        }

        public long getFailedLast24h() {
            return failedLast24h;
        }

        public void setFailedLast24h(long failedLast24h) {
            this.failedLast24h = failedLast24h;
        }

        /** @return true while this account's dispatch is paused (its mail waits QUEUED) */
        public boolean isPaused() {
            return paused;
        }

        public void setPaused(boolean paused) {
            this.paused = paused;
        }
    }
}
