package dev.mailqueue.bounce.control;

import dev.mailqueue.queue.control.BounceReport;
import dev.mailqueue.account.control.Accounts;
import dev.mailqueue.log.control.LogText;
import dev.mailqueue.metrics.control.Metrics;
import dev.mailqueue.server.control.ServerResources;
import dev.mailqueue.settings.control.QueueSettings;
import jakarta.batch.api.chunk.ItemProcessor;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import jakarta.mail.Session;

import java.util.logging.Logger;

/**
 * The intake step's processor: says what each message reports ({@link BounceClassifier}), with the VERP
 * tokens of the configured secret ({@link Accounts#verp()}) and within the intake's limits
 * ({@link QueueSettings#bounceLimits()}), and drops its bytes. Counts the messages read only in part
 * ({@code mailqueue.bounce.reports.truncated}) and those refused for their MIME structure
 * ({@code mailqueue.bounce.reports.refused}).
 */
@Named("ReportClassifier")
@Dependent
public class ReportClassifier implements ItemProcessor {

    private static final Logger LOG = Logger.getLogger(ReportClassifier.class.getName());

    @Inject
    QueueSettings settings;

    @Inject
    Accounts accounts;

    @Inject
    Metrics metrics;

    private Session session;

    @Override
    public Object processItem(Object item) {
        if (session == null) {
            session = ServerResources.lookup(settings.bounceMailbox(), Session.class, "the bounce mailbox");
        }
        FetchedReport fetched = (FetchedReport) item;
        BounceReport report = BounceClassifier.classify(session, fetched.raw(), accounts.verp().orElse(null),
                settings.bounceLimits());
        if (fetched.truncated()) {
            metrics.counter("mailqueue.bounce.reports.truncated").run();
            LOG.info(() -> "bounce intake: message " + LogText.escape(report.key()) + " is larger than "
                    + settings.bounceLimits().maxMessageBytes() + " bytes (mailqueue.bounce.max-message-bytes):"
                    + " classified from its start");
        }
        if (report.summary().startsWith(BounceClassifier.REFUSED)) {
            metrics.counter("mailqueue.bounce.reports.refused").run();
            LOG.warning(() -> "bounce intake: message " + LogText.escape(report.key()) + " " + report.summary());
        }
        return new FetchedReport(fetched.index(), null, fetched.truncated(), report);
    }
}
