package dev.mailqueue.bounce.control;

import dev.mailqueue.account.control.Accounts;
import jakarta.batch.api.chunk.ItemProcessor;
import dev.mailqueue.server.control.ServerResources;
import dev.mailqueue.settings.control.QueueSettings;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Inject;
import jakarta.mail.Session;
import jakarta.inject.Named;

/**
 * The intake step's processor: says what each message reports ({@link BounceClassifier}), with the VERP
 * tokens of the configured secret ({@link Accounts#verp()}), and drops its bytes.
 */
@Named("ReportClassifier")
@Dependent
public class ReportClassifier implements ItemProcessor {

    @Inject
    QueueSettings settings;

    @Inject
    Accounts accounts;

    private Session session;

    @Override
    public Object processItem(Object item) {
        if (session == null) {
            session = ServerResources.lookup(settings.bounceMailbox(), Session.class, "the bounce mailbox");
        }
        FetchedReport fetched = (FetchedReport) item;
        return new FetchedReport(fetched.index(), null, BounceClassifier.classify(session, fetched.raw(), accounts.verp().orElse(null)));
    }
}
