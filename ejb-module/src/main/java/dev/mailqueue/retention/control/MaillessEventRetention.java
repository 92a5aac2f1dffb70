package dev.mailqueue.retention.control;

import dev.mailqueue.queue.control.OperatorStore;
import dev.mailqueue.settings.control.QueueSettings;
import jakarta.batch.api.AbstractBatchlet;
import jakarta.batch.runtime.context.StepContext;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Inject;
import jakarta.inject.Named;

import java.time.Instant;
import java.util.logging.Logger;

/**
 * The retention job's second step: deletes the events that belong to no mail, and so never go with one
 * (an unsubscribe's {@code unsubscribed} event), once they are {@code mailqueue.retention.days} days old
 * ({@link RetentionPolicy#cutoff}), with their webhook delivery log. Such events are rare (one per
 * unsubscribe), so one statement per table does. The step's exit status is {@code EVENTS_DELETED=<n>}.
 */
@Named("MaillessEventRetention")
@Dependent // a new instance per step execution, as batch artifacts need
public class MaillessEventRetention extends AbstractBatchlet {

    private static final Logger LOG = Logger.getLogger(MaillessEventRetention.class.getName());

    @Inject
    StepContext step;

    @Inject
    OperatorStore store;

    @Inject
    QueueSettings settings;

    /** @return {@code EVENTS_DELETED=<n>}, also the step's exit status */
    @Override
    public String process() {
        int deleted = store.deleteMaillessEventsBefore(RetentionPolicy.cutoff(Instant.now(), settings.retentionDays()));
        String status = "EVENTS_DELETED=" + deleted;
        step.setExitStatus(status);
        if (deleted > 0) {
            LOG.info(() -> "mail retention: " + deleted + " events of no mail (unsubscribes) deleted");
        }
        return status;
    }
}
