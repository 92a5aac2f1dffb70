package dev.mailqueue.retention.control;

import dev.mailqueue.settings.control.QueueSettings;
import jakarta.batch.api.chunk.AbstractCheckpointAlgorithm;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Inject;
import jakarta.inject.Named;

/**
 * A retention chunk (and its transaction) holds {@code mailqueue.retention.chunk-size} mails: read from
 * the settings bean, the one place of the value.
 */
@Named("RetentionCheckpoints")
@Dependent // a new instance per step execution, as batch artifacts need
public class RetentionCheckpoints extends AbstractCheckpointAlgorithm {

    @Inject
    QueueSettings settings;

    private int items;

    @Override
    public void beginCheckpoint() {
        items = 0;
    }

    @Override
    public boolean isReadyToCheckpoint() {
        return ++items >= settings.retentionChunkSize();
    }
}
