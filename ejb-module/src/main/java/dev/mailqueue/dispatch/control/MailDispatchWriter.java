package dev.mailqueue.dispatch.control;

import dev.mailqueue.account.control.AccountSessions;
import dev.mailqueue.account.control.AccountThrottle;
import dev.mailqueue.account.control.Accounts;
import dev.mailqueue.dispatch.control.DeliveryOutcome.Verdict;
import dev.mailqueue.mail.entity.Utc;
import jakarta.batch.api.BatchProperty;
import jakarta.batch.api.chunk.AbstractItemWriter;
import jakarta.batch.runtime.context.JobContext;
import jakarta.inject.Inject;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Named;

import jakarta.mail.SendFailedException;

import java.io.Serializable;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Sends a chunk of composed mails through their SMTP accounts ({@link AccountSender}: one connection
 * per account, opened once, reused across chunks, reopened after it breaks; failover; rate limits) and
 * records every outcome in the chunk transaction. Mails an account's rate limit holds back go back to
 * the queue unsent ({@link DeferredMails}). Before
 * the first SMTP command it marks the chunk's rows as send-started (committed at once), so a lease that
 * expires afterwards is known to be in doubt. A mail past its expires-at is not sent but EXPIRED; a
 * failure is transient or permanent by its reply ({@link FailureClass}), per recipient where the server
 * answered recipients differently ({@link PartialDelivery}).
 *
 * <p>Mail leaves outside any transaction: if the chunk rolled back after the server accepted a mail,
 * the row stays leased, comes back when the lease expires and is sent again with the same
 * Message-ID. Delivery is at least once; the window is one chunk.
 */
@Named("MailDispatchWriter")
@Dependent // a new instance per step execution, as batch artifacts need
public class MailDispatchWriter extends AbstractItemWriter {

    @Inject
    @BatchProperty
    String backoffMinMillis;

    @Inject
    @BatchProperty
    String backoffMaxMillis;

    @Inject
    @BatchProperty
    String backoffJitter;

    @Inject
    @BatchProperty
    String maxAttempts;

    @Inject
    JobContext job;

    @Inject
    ServerInstance server;

    @Inject
    DeliveryRecorder recorder;

    @Inject
    SendStartMarker marker;

    @Inject
    Accounts accounts;

    @Inject
    AccountSessions sessions;

    @Inject
    AccountThrottle throttle;

    @Inject
    DeferredMails deferrals;

    @Inject
    DispatchMetrics metrics;

    private AccountSender sender;
    private RetryPolicy policy;
    private String owner;

    @Override
    public void open(Serializable checkpoint) {
        sender = new AccountSender(accounts, sessions, throttle);
        long min = JobSettings.nonNegativeLong("backoffMinMillis", backoffMinMillis, 300_000L);
        policy = new RetryPolicy(min,
                Math.max(min, JobSettings.nonNegativeLong("backoffMaxMillis", backoffMaxMillis, 4_000_000L)),
                JobSettings.fraction("backoffJitter", backoffJitter, 0.25),
                JobSettings.positiveInt("maxAttempts", maxAttempts, 100));
        owner = server.leaseOwner(job.getExecutionId());
    }

    @Override
    public void writeItems(List<Object> items) {
        // Committed before the first SMTP command: a lease that expires from here on may have been sent.
        marker.markStarted(items.stream().map(item -> ((OutgoingMail) item).mailId()).toList(), owner, Utc.now());
        List<DeliveryOutcome> outcomes = new ArrayList<>(items.size());
        Map<Long, LocalDateTime> deferred = new LinkedHashMap<>();
        for (Object item : items) {
            DeliveryOutcome outcome = deliver((OutgoingMail) item, deferred);
            if (outcome != null) {
                outcomes.add(outcome);
            }
        }
        if (!outcomes.isEmpty()) {
            recorder.record(outcomes, owner, server.name(), policy);
        }
        deferrals.defer(deferred, owner);
    }

    /** @return the attempt's outcome, or null when a rate limit deferred the mail (then it is in {@code deferred}) */
    private DeliveryOutcome deliver(OutgoingMail mail, Map<Long, LocalDateTime> deferred) {
        LocalDateTime started = Utc.now();
        if (mail.expiresAt() != null && !started.isBefore(mail.expiresAt())) {
            return outcome(mail, started, Verdict.EXPIRED, SmtpReply.NONE,
                    "expired at " + mail.expiresAt() + "Z before it could be sent", null);
        }
        if (mail.message() == null) {
            return outcome(mail, started, Verdict.PERMANENT, SmtpReply.NONE, mail.composeError(), null);
        }
        if (mail.recipients().length == 0) { // an earlier attempt settled them all
            return outcome(mail, started, mail.anyAccepted() ? Verdict.SENT : Verdict.PERMANENT, SmtpReply.NONE,
                    null, null);
        }
        long sending = System.nanoTime();
        AccountSender.Result result = sender.send(mail.account(), mail.message(), mail.recipients());
        if (result.deferUntil() == null) {
            metrics.sent(Duration.ofNanos(System.nanoTime() - sending), result.sent());
        }
        if (result.deferUntil() != null) {
            deferred.put(mail.mailId(), result.deferUntil());
            return null;
        }
        if (result.sent()) {
            return PartialDelivery.accepted(mail, started, Utc.now(), result.reply(), result.account());
        }
        if (result.failure() instanceof SendFailedException refused) {
            DeliveryOutcome partial = PartialDelivery.of(mail, started, Utc.now(), refused, result.account());
            if (partial != null) {
                return partial;
            }
        }
        // No account reachable: transient by nature. Otherwise the server's reply decides.
        Verdict verdict = !result.unreachable() && FailureClass.of(result.reply()) == FailureClass.PERMANENT
                ? Verdict.PERMANENT : Verdict.TRANSIENT;
        return outcome(mail, started, verdict, result.reply(), result.error(), result.account());
    }

    private static DeliveryOutcome outcome(OutgoingMail mail, LocalDateTime started, Verdict verdict,
                                           SmtpReply reply, String error, String account) {
        return new DeliveryOutcome(mail.mailId(), mail.attemptsRemaining(), mail.expiresAt(), started, Utc.now(),
                verdict, reply, error, List.of(), account);
    }

    @Override
    public void close() {
        if (sender != null) {
            sender.close();
        }
    }

    /** The failure with its causes, e.g. "Couldn't connect to host ... <- Connection refused". */
    static String describe(Throwable failure) {
        StringBuilder text = new StringBuilder();
        Throwable t = failure;
        for (int depth = 0; t != null && depth < 5; depth++) {
            if (!text.isEmpty()) {
                text.append(" <- ");
            }
            text.append(t.getClass().getSimpleName()).append(": ").append(t.getMessage());
            t = t.getCause();
        }
        return text.toString();
    }
}
