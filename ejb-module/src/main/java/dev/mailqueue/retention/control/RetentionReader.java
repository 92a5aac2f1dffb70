package dev.mailqueue.retention.control;

import dev.mailqueue.queue.control.OperatorStore;
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
 * Reads the ids of mails old enough to delete ({@link RetentionPolicy}), one page of
 * {@code mailqueue.retention.chunk-size} ids per query in id order. The cutoff is fixed when the step
 * opens ({@code mailqueue.retention.days} before then) and handed to the writer through the step
 * context. The checkpoint is the last id read.
 */
@Named("RetentionReader")
@Dependent // a new instance per step execution, as batch artifacts need
public class RetentionReader extends AbstractItemReader {

    @Inject
    QueueSettings settings;

    @Inject
    StepContext step;

    @Inject
    OperatorStore store;

    private final Deque<Long> page = new ArrayDeque<>();
    private Instant cutoff;
    private int pageSize;
    private long lastId;
    private boolean exhausted;

    @Override
    public void open(Serializable checkpoint) {
        pageSize = settings.retentionChunkSize();
        cutoff = RetentionPolicy.cutoff(Instant.now(), settings.retentionDays());
        lastId = checkpoint == null ? 0 : (Long) checkpoint;
        step.setTransientUserData(cutoff);
    }

    /** @return the next deletable mail's id, or null when there is none left (ends the step) */
    @Override
    public Object readItem() {
        if (page.isEmpty() && !exhausted) {
            page.addAll(store.finishedBefore(cutoff, lastId, pageSize));
            exhausted = page.size() < pageSize;
        }
        Long id = page.poll();
        if (id != null) {
            lastId = id;
        }
        return id;
    }

    @Override
    public Serializable checkpointInfo() {
        return lastId;
    }
}
