package dev.mailqueue.settings.control;

import jakarta.batch.api.chunk.AbstractCheckpointAlgorithm;

/**
 * A chunk checkpoint after a number of items that a setting gives, read when each chunk begins (so the one place of
 * the value is the settings, however the job was started). A subclass is the named batch artifact of one job.
 */
public abstract class CountedCheckpoints extends AbstractCheckpointAlgorithm {

    private int items;
    private int size;

    /** @return the items a chunk holds, 1 or more */
    protected abstract int chunkSize();

    @Override
    public void beginCheckpoint() {
        items = 0;
        size = chunkSize();
    }

    @Override
    public boolean isReadyToCheckpoint() {
        return ++items >= size;
    }
}
