package dev.mailqueue.bounce.control;

import dev.mailqueue.queue.control.BounceReport;
import dev.mailqueue.log.control.LogText;
import dev.mailqueue.metrics.control.Metrics;
import dev.mailqueue.queue.control.BounceStore;
import dev.mailqueue.queue.control.StoreException;
import dev.mailqueue.settings.control.QueueSettings;
import jakarta.mail.MessagingException;
import jakarta.batch.api.chunk.AbstractItemWriter;
import jakarta.batch.runtime.context.JobContext;
import jakarta.batch.runtime.context.StepContext;
import jakarta.ejb.EJBException;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Inject;
import jakarta.inject.Named;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Collectors;

/**
 * Records each report of the chunk in its own committed transaction ({@link BounceRecorder}), then marks
 * its message deleted in the mailbox. A report another server recorded meanwhile is deleted too. One message
 * never stops the intake:
 * <ul>
 *   <li>when the database is away (a connection failure, a deadlock: {@link StoreException#isConnectionFailure},
 *       {@link StoreException#isTransient}) the step fails, and the message and those after it stay for the
 *       next run;</li>
 *   <li>when the database refuses the report's data for another reason (which the field checks of
 *       {@link ReportFields} should leave none of), the report is recorded as UNRECOGNISED by its key; should
 *       even that be refused, its message is copied to the quarantine folder
 *       ({@code mailqueue.bounce.quarantine-folder}, IMAP only); either way it is deleted from the inbox, logged
 *       and counted ({@code mailqueue.bounce.reports.unrecordable}), and the run goes on.</li>
 * </ul>
 * Sets the exit status to the counts per kind, e.g. {@code FAILED=2,DELAYED=1,UNRECOGNISED=1,ALREADY=0}.
 */
@Named("BounceReportWriter")
@Dependent
public class BounceReportWriter extends AbstractItemWriter {

    private static final Logger LOG = Logger.getLogger(BounceReportWriter.class.getName());

    @Inject
    StepContext step;

    @Inject
    JobContext job;

    @Inject
    BounceRecorder recorder;

    @Inject
    QueueSettings settings;

    @Inject
    Metrics metrics;

    private final Map<BounceReport.Kind, Integer> counts = new EnumMap<>(BounceReport.Kind.class);
    private int already;

    @Override
    public void writeItems(List<Object> items) throws Exception {
        Mailbox mailbox = (Mailbox) step.getTransientUserData();
        for (Object item : items) {
            FetchedReport fetched = (FetchedReport) item;
            BounceReport report = fetched.report();
            BounceStore.Recorded recorded;
            try {
                recorded = recorder.record(report);
            } catch (EJBException e) {
                if (recorder.isRecorded(report.key())) {
                    recorded = BounceStore.Recorded.ALREADY_RECORDED;
                } else if (StoreException.isConnectionFailure(e) || StoreException.isTransient(e)) {
                    throw e; // the database is away: this message and the rest wait for the next run
                } else {
                    recorded = unrecordable(mailbox, fetched, e);
                }
            }
            if (recorded == BounceStore.Recorded.ALREADY_RECORDED) {
                already++;
            } else {
                counts.merge(report.kind(), 1, Integer::sum);
                LOG.info(() -> "bounce intake: " + report.kind() + " " + LogText.escape(report.key()) + " about "
                        + LogText.escape(String.valueOf(report.originalMessageId())) + ": " + LogText.escape(report.summary()));
            }
            mailbox.delete(fetched.index());
        }
    }

    /**
     * Records a report whose data the database refused as UNRECOGNISED, or failing that quarantines its message.
     *
     * @return how it was recorded
     * @throws EJBException when the database is away after all: the step fails, the message stays
     */
    private BounceStore.Recorded unrecordable(Mailbox mailbox, FetchedReport fetched, EJBException refused)
            throws Exception {
        BounceReport report = fetched.report();
        metrics.counter("mailqueue.bounce.reports.unrecordable").run();
        LOG.log(Level.WARNING, "bounce intake: report " + LogText.escape(report.key()) + " could not be recorded as it"
                + " reads (" + LogText.escape(report.summary()) + "); recording it as UNRECOGNISED", refused);
        try {
            return recorder.recordUnrecognised(report.key());
        } catch (EJBException e) {
            if (StoreException.isConnectionFailure(e) || StoreException.isTransient(e)) {
                throw e;
            }
            boolean kept;
            try {
                kept = mailbox.quarantine(fetched.index(), settings.bounceQuarantineFolder());
            } catch (MessagingException q) {
                LOG.log(Level.WARNING, "bounce intake: could not copy the message to the quarantine folder", q);
                kept = false;
            }
            boolean quarantined = kept;
            LOG.log(Level.SEVERE, () -> "bounce intake: report " + LogText.escape(report.key()) + " cannot be recorded at all; "
                    + (quarantined ? "its message was moved to folder " + settings.bounceQuarantineFolder()
                    : "its message is deleted (this mailbox has no folders for a quarantine)"));
            return BounceStore.Recorded.RECORDED;
        }
    }

    @Override
    public void close() {
        String status = counts.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                .collect(Collectors.joining(",", "", counts.isEmpty() ? "ALREADY=" + already : ",ALREADY=" + already));
        step.setExitStatus(status);
        job.setExitStatus(status);
    }
}
