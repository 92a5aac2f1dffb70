package dev.mailqueue.bounce.control;

import dev.mailqueue.settings.control.CountedCheckpoints;
import dev.mailqueue.settings.control.QueueSettings;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Inject;
import jakarta.inject.Named;

/**
 * A bounce intake chunk holds {@code mailqueue.bounce.chunk-size} reports (1 to 1,000, default 20): read from the
 * settings bean, the one place of the value, however the job was started (the scheduler, the batch REST API or the
 * admin console, with or without parameters).
 */
@Named("BounceCheckpoints")
@Dependent // a new instance per step execution, as batch artifacts need
public class BounceCheckpoints extends CountedCheckpoints {

    @Inject
    QueueSettings settings;

    @Override
    protected int chunkSize() {
        return settings.bounceChunkSize();
    }
}
