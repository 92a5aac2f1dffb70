package dev.mailqueue.dispatch.control;

import dev.mailqueue.account.control.AccountSessions;
import dev.mailqueue.account.control.AccountThrottle;
import dev.mailqueue.account.control.Accounts;
import dev.mailqueue.mail.entity.Utc;
import jakarta.batch.api.BatchProperty;
import jakarta.batch.api.chunk.AbstractItemWriter;
import jakarta.batch.runtime.context.JobContext;
import jakarta.inject.Inject;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Named;

import java.io.Serializable;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Sends a chunk of composed mails through their SMTP accounts ({@link AccountSender}: one connection
 * per account, opened once, reused across chunks, reopened after it breaks; failover; rate limits) and
 * records every outcome in the chunk transaction. Mails an account's rate limit holds back go back to
 * the queue unsent ({@link DeferredMails}).
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
    String retryDelayMillis;

    @Inject
    JobContext job;

    @Inject
    ServerInstance server;

    @Inject
    DeliveryRecorder recorder;

    @Inject
    Accounts accounts;

    @Inject
    AccountSessions sessions;

    @Inject
    AccountThrottle throttle;

    @Inject
    DeferredMails deferrals;

    private AccountSender sender;
    private RetryPolicy policy;
    private String owner;

    @Override
    public void open(Serializable checkpoint) {
        sender = new AccountSender(accounts, sessions, throttle);
        policy = new RetryPolicy(JobSettings.nonNegativeLong("retryDelayMillis", retryDelayMillis, 300_000L));
        owner = server.leaseOwner(job.getExecutionId());
    }

    @Override
    public void writeItems(List<Object> items) {
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
        if (mail.message() == null) {
            return new DeliveryOutcome(mail.mailId(), mail.attemptsRemaining(), started, Utc.now(), false,
                    SmtpReply.NONE, mail.composeError(), mail.account());
        }
        AccountSender.Result result = sender.send(mail.account(), mail.message());
        if (result.deferUntil() != null) {
            deferred.put(mail.mailId(), result.deferUntil());
            return null;
        }
        return new DeliveryOutcome(mail.mailId(), mail.attemptsRemaining(), started, Utc.now(), result.sent(),
                result.reply(), result.error(), result.account());
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
