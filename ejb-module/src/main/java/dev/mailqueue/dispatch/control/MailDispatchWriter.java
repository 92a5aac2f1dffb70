package dev.mailqueue.dispatch.control;

import dev.mailqueue.mail.entity.Utc;
import jakarta.annotation.Resource;
import jakarta.batch.api.BatchProperty;
import jakarta.batch.api.chunk.AbstractItemWriter;
import jakarta.batch.runtime.context.JobContext;
import jakarta.inject.Inject;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Named;
import jakarta.mail.MessagingException;
import jakarta.mail.Session;

import java.io.Serializable;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;

/**
 * Sends a chunk of composed mails over this claimer's one SMTP connection (opened once, reused
 * across chunks, reopened after it breaks) and records every outcome in the chunk transaction.
 *
 * <p>Mail leaves outside any transaction: if the chunk rolled back after the server accepted a mail,
 * the row stays leased, comes back when the lease expires and is sent again with the same
 * Message-ID. Delivery is at least once; the window is one chunk.
 */
@Named("MailDispatchWriter")
@Dependent // a new instance per step execution, as batch artifacts need
public class MailDispatchWriter extends AbstractItemWriter {

    @Resource(lookup = "mail/mailqueue")
    Session session;

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
    DispatchMetrics metrics;

    private SmtpConnection connection;
    private RetryPolicy policy;
    private String owner;

    @Override
    public void open(Serializable checkpoint) {
        connection = new SmtpConnection(session);
        policy = new RetryPolicy(JobSettings.nonNegativeLong("retryDelayMillis", retryDelayMillis, 300_000L));
        owner = server.leaseOwner(job.getExecutionId());
    }

    @Override
    public void writeItems(List<Object> items) {
        List<DeliveryOutcome> outcomes = new ArrayList<>(items.size());
        for (Object item : items) {
            outcomes.add(deliver((OutgoingMail) item));
        }
        recorder.record(outcomes, owner, server.name(), policy);
    }

    private DeliveryOutcome deliver(OutgoingMail mail) {
        LocalDateTime started = Utc.now();
        if (mail.message() == null) {
            return new DeliveryOutcome(mail.mailId(), mail.attemptsRemaining(), started, Utc.now(), false,
                    SmtpReply.NONE, mail.composeError());
        }
        long sending = System.nanoTime();
        try {
            SmtpReply reply = connection.send(mail.message());
            metrics.sent(Duration.ofNanos(System.nanoTime() - sending), true);
            return new DeliveryOutcome(mail.mailId(), mail.attemptsRemaining(), started, Utc.now(), true, reply, null);
        } catch (MessagingException e) {
            metrics.sent(Duration.ofNanos(System.nanoTime() - sending), false);
            return new DeliveryOutcome(mail.mailId(), mail.attemptsRemaining(), started, Utc.now(), false,
                    SmtpReply.of(e), describe(e));
        }
    }

    @Override
    public void close() {
        if (connection != null) {
            connection.close();
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
