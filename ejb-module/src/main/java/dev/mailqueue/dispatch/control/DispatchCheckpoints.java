package dev.mailqueue.dispatch.control;

import dev.mailqueue.settings.control.QueueSettings;
import jakarta.batch.api.chunk.AbstractCheckpointAlgorithm;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Inject;
import jakarta.inject.Named;

/**
 * When a dispatch chunk ends: after {@code mailqueue.dispatch.batch-size} mails or
 * {@code mailqueue.dispatch.chunk.time-limit.s} seconds, whichever comes first (checked after each
 * mail), and with a chunk transaction timeout of {@code mailqueue.dispatch.chunk.transaction-timeout.s}.
 * The settings bean is the one place of these values, so the job XML holds none. Short chunks matter
 * because the chunk's JTA transaction, though it holds no work of the queue, times out like any: with
 * SMTP at 3 s a mail, 100 mails would take 300 s, past Jakarta Batch's default of 180 s.
 */
@Named("DispatchCheckpoints")
@Dependent // a new instance per step execution, as batch artifacts need
public class DispatchCheckpoints extends AbstractCheckpointAlgorithm {

    @Inject
    QueueSettings settings;

    private int items;
    private long startedNanos = System.nanoTime();

    @Override
    public int checkpointTimeout() {
        return settings.chunkTransactionTimeoutSeconds();
    }

    @Override
    public void beginCheckpoint() {
        items = 0;
        startedNanos = System.nanoTime();
    }

    @Override
    public boolean isReadyToCheckpoint() {
        items++;
        return items >= settings.batchSize()
                || System.nanoTime() - startedNanos >= settings.chunkTimeLimitSeconds() * 1_000_000_000L;
    }
}
