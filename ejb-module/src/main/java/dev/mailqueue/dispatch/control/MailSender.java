package dev.mailqueue.dispatch.control;

import dev.mailqueue.queue.control.ClaimedMail;
import jakarta.batch.api.chunk.ItemProcessor;
import jakarta.batch.runtime.context.JobContext;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Inject;
import jakarta.inject.Named;

/**
 * The dispatch job's processor: sends one claimed mail through its SMTP account with the chunk's
 * transaction suspended ({@link OutsideTransaction}), and returns the change recorded for it (an
 * attempt, or the mail handed back). The change is durable by the time the writer returns, usually
 * much sooner: it goes to the journal as the claimer's next mail is about to be sent, and that mail's DATA
 * ends only once it is committed ({@link SendGate}).
 */
@Named("MailSender")
@Dependent // a new instance per step execution, as batch artifacts need
public class MailSender implements ItemProcessor {

    @Inject
    JobContext job;

    @Inject
    OutsideTransaction outside;

    @Override
    public Object processItem(Object item) {
        Claimer claimer = ClaimerLifecycle.of(job);
        return outside.call(() -> claimer.send((ClaimedMail) item));
    }
}
