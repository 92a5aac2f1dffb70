package dev.mailqueue.retention.control;

import dev.mailqueue.queue.control.ContentStore;
import dev.mailqueue.settings.control.QueueSettings;
import jakarta.batch.api.chunk.AbstractItemReader;
import jakarta.batch.runtime.context.StepContext;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Inject;
import jakarta.inject.Named;

import java.io.Serializable;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Reads the ids of finished mails whose content may go ({@link ContentCutoffs}), an hour of finish times a
 * query ({@link ContentStore#removable}, pages of up to {@value #PAGE} ids within the hour), from the earliest
 * finish time that can still hold such a mail to the content cutoff. So a run reads the log of the mails finished
 * since the last complete run (and a day before it), not the whole history. The step reads nothing when
 * {@code mailqueue.retention.content-days} is not below {@code mailqueue.retention.days}. The checkpoint is the hour
 * and the last id read in it; the cutoff is handed to the writer through the step context, and recorded as
 * reached ({@link ContentStore#reach}) when the reader has read to it and the step did not fail.
 */
@Named("ContentRetentionReader")
@Dependent // a new instance per step execution, as batch artifacts need
public class ContentRetentionReader extends AbstractItemReader {

    /** Ids read per query: 80 KB of them at most in memory. */
    static final int PAGE = 10_000;

    @Inject
    QueueSettings settings;

    @Inject
    StepContext step;

    @Inject
    ContentStore store;

    private final Deque<Long> page = new ArrayDeque<>();
    private ContentCutoffs cutoffs;
    private Instant pageHour; // the hour the ids in page finished in
    private Instant nextHour; // the hour the next query reads
    private long nextAfterId;
    private Position read;    // the last id handed out, and its hour
    private boolean done;

    /** Where the step has got: an hour of finish times (its start) and the last id read in it. */
    record Position(Instant hour, long lastId) implements Serializable {
    }

    @Override
    public void open(Serializable checkpoint) {
        cutoffs = ContentCutoffs.of(Instant.now(), settings.retentionDays(), settings.retentionContentDays());
        step.setTransientUserData(cutoffs.content());
        done = !cutoffs.removesContent();
        if (checkpoint instanceof Position p) {
            nextHour = p.hour();
            nextAfterId = p.lastId();
        } else {
            nextHour = cutoffs.firstHour(store.reached());
            nextAfterId = 0;
        }
        read = new Position(nextHour, nextAfterId);
    }

    /** @return the next mail id whose content may go, or null when there is none left (ends the step) */
    @Override
    public Object readItem() {
        while (page.isEmpty() && !done) {
            if (!nextHour.isBefore(cutoffs.content())) {
                done = true;
                break;
            }
            Instant end = ContentCutoffs.earlier(nextHour.plus(ContentCutoffs.HOUR), cutoffs.content());
            page.addAll(store.removable(nextHour, end, nextAfterId, PAGE));
            pageHour = nextHour;
            if (page.size() < PAGE) { // the hour is read: the next query reads the next
                nextHour = nextHour.plus(ContentCutoffs.HOUR);
                nextAfterId = 0;
            } else {
                nextAfterId = page.peekLast();
            }
        }
        Long id = page.poll();
        if (id != null) {
            read = new Position(pageHour, id);
        }
        return id;
    }

    @Override
    public Serializable checkpointInfo() {
        return read;
    }

    @Override
    public void close() {
        if (done && page.isEmpty() && cutoffs.removesContent() && step.getException() == null) {
            store.reach(cutoffs.content());
        }
    }
}
