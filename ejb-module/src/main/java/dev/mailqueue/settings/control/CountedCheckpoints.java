package dev.mailqueue.settings.control;

import jakarta.batch.api.chunk.AbstractCheckpointAlgorithm;

/**
 * A chunk checkpoint after a number of items that a setting gives, read at each item (so the one place of the value
 * is the settings, however the job was started, and nothing depends on when the batch runtime calls
 * {@link #beginCheckpoint()}). A subclass is the named batch artifact of one job.
 */
public abstract class CountedCheckpoints extends AbstractCheckpointAlgorithm {

    private int items;

    /** @return the items a chunk holds, 1 or more */
    protected abstract int chunkSize();

    @Override
    public void beginCheckpoint() {
        items = 0;
    }

    @Override
    public boolean isReadyToCheckpoint() {
        return ++items >= chunkSize();
    }
}
