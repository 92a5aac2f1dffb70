package dev.mailqueue.dispatch.control;

import dev.mailqueue.mail.entity.Utc;
import jakarta.annotation.Resource;
import jakarta.batch.api.BatchProperty;
import jakarta.batch.api.chunk.AbstractItemWriter;
import jakarta.batch.runtime.context.JobContext;
import jakarta.inject.Inject;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Named;
import dev.mailqueue.dispatch.control.DeliveryOutcome.Verdict;
import jakarta.mail.MessagingException;
import jakarta.mail.SendFailedException;
import jakarta.mail.Session;

import java.io.Serializable;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;

/**
 * Sends a chunk of composed mails over this claimer's one SMTP connection (opened once, reused
 * across chunks, reopened after it breaks) and records every outcome in the chunk transaction. Before
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

    @Resource(lookup = "mail/mailqueue")
    Session session;

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

    private SmtpConnection connection;
    private RetryPolicy policy;
    private String owner;

    @Override
    public void open(Serializable checkpoint) {
        connection = new SmtpConnection(session);
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
        for (Object item : items) {
            outcomes.add(deliver((OutgoingMail) item));
        }
        recorder.record(outcomes, owner, server.name(), policy);
    }

    private DeliveryOutcome deliver(OutgoingMail mail) {
        LocalDateTime started = Utc.now();
        if (mail.expiresAt() != null && !started.isBefore(mail.expiresAt())) {
            return outcome(mail, started, Verdict.EXPIRED, SmtpReply.NONE,
                    "expired at " + mail.expiresAt() + "Z before it could be sent");
        }
        if (mail.message() == null) {
            return outcome(mail, started, Verdict.PERMANENT, SmtpReply.NONE, mail.composeError());
        }
        if (mail.recipients().length == 0) { // an earlier attempt settled them all
            return outcome(mail, started, mail.anyAccepted() ? Verdict.SENT : Verdict.PERMANENT, SmtpReply.NONE, null);
        }
        try {
            SmtpReply reply = connection.send(mail.message(), mail.recipients());
            return PartialDelivery.accepted(mail, started, Utc.now(), reply);
        } catch (SendFailedException e) {
            DeliveryOutcome partial = PartialDelivery.of(mail, started, Utc.now(), e);
            return partial != null ? partial : failed(mail, started, e);
        } catch (MessagingException e) {
            return failed(mail, started, e);
        }
    }

    /** A failure of the whole transaction (connection, MAIL FROM, DATA), classified by its reply. */
    private static DeliveryOutcome failed(OutgoingMail mail, LocalDateTime started, MessagingException e) {
        SmtpReply reply = SmtpReply.of(e);
        Verdict verdict = FailureClass.of(reply) == FailureClass.PERMANENT ? Verdict.PERMANENT : Verdict.TRANSIENT;
        return outcome(mail, started, verdict, reply, describe(e));
    }

    private static DeliveryOutcome outcome(OutgoingMail mail, LocalDateTime started, Verdict verdict,
                                           SmtpReply reply, String error) {
        return new DeliveryOutcome(mail.mailId(), mail.attemptsRemaining(), mail.expiresAt(), started, Utc.now(),
                verdict, reply, error, List.of());
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
