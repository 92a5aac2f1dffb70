package dev.mailqueue.health.boundary;

import dev.mailqueue.dispatch.control.OutcomeJournal;
import dev.mailqueue.health.registration.QueueHealthCheck;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;

import java.time.Duration;
import java.time.Instant;

/**
 * Ready unless this server's record of sent mail has been waiting for one commit longer than
 * {@value #STALLED_SECONDS} s ({@link OutcomeJournal#writingSince()}). A commit that does not return while the
 * database still answers reads is what PostgreSQL does while its only synchronous standby is away: every
 * commit waits, enqueues included, so a load balancer should send nothing here until it returns. The
 * database check ({@link DatabaseReadiness}) cannot see it, because reads do not wait. A server that is not
 * sending anything at that moment has no commit to watch and stays ready.
 */
@QueueHealthCheck(QueueHealthCheck.Procedure.READINESS)
@ApplicationScoped
public class DispatchRecordReadiness implements HealthCheck {

    /** A commit of the dispatch record under way this long, in seconds, makes the server not ready. */
    static final int STALLED_SECONDS = 5;

    @Inject
    OutcomeJournal journal;

    @Override
    public HealthCheckResponse call() {
        Instant since = journal.writingSince();
        long waiting = since == null ? 0 : Duration.between(since, Instant.now()).toMillis();
        if (waiting > STALLED_SECONDS * 1000L) {
            return HealthCheckResponse.named("dispatch-record").down()
                    .withData("commitWaitingMs", waiting)
                    .withData("reason", "a commit of sent mails' outcomes has not returned for " + waiting
                            + " ms (PostgreSQL: is the synchronous standby away?)").build();
        }
        return HealthCheckResponse.named("dispatch-record").up().withData("commitWaitingMs", waiting).build();
    }
}
