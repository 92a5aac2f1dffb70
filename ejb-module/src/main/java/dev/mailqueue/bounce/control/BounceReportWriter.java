package dev.mailqueue.bounce.control;

import dev.mailqueue.log.control.LogText;
import dev.mailqueue.queue.control.BounceStore;
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
import java.util.logging.Logger;
import java.util.stream.Collectors;

/**
 * Records each report of the chunk in its own committed transaction ({@link BounceRecorder}), then marks
 * its message deleted in the mailbox. A report another server recorded meanwhile is deleted too; one that
 * could not be recorded fails the step, and its message and those after it stay for the next run. Sets the
 * exit status to the counts per kind, e.g. {@code FAILED=2,DELAYED=1,UNRECOGNISED=1,ALREADY=0}.
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
                if (!recorder.isRecorded(report.key())) {
                    throw e;
                }
                recorded = BounceStore.Recorded.ALREADY_RECORDED;
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

    @Override
    public void close() {
        String status = counts.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                .collect(Collectors.joining(",", "", counts.isEmpty() ? "ALREADY=" + already : ",ALREADY=" + already));
        step.setExitStatus(status);
        job.setExitStatus(status);
    }
}
