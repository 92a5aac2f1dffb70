package dev.mailqueue.retention.control;

import dev.mailqueue.settings.control.CountedCheckpoints;
import dev.mailqueue.settings.control.QueueSettings;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Inject;
import jakarta.inject.Named;

/**
 * A retention chunk (and its transaction) holds {@code mailqueue.retention.chunk-size} mails: read from
 * the settings bean, the one place of the value.
 */
@Named("RetentionCheckpoints")
@Dependent // a new instance per step execution, as batch artifacts need
public class RetentionCheckpoints extends CountedCheckpoints {

    @Inject
    QueueSettings settings;

    @Override
    protected int chunkSize() {
        return settings.retentionChunkSize();
    }
}
