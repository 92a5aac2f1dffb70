package dev.mailqueue.bounce.control;

import dev.mailqueue.dispatch.control.ServerInstance;
import dev.mailqueue.queue.control.BounceStore;
import dev.mailqueue.settings.control.QueueSettings;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;

import java.time.Instant;

/**
 * Records one report in a transaction of its own, committed when {@link #record} returns, so that its
 * message may then be deleted from the mailbox: a report is never deleted before it is recorded.
 */
@Stateless
public class BounceRecorder {

    @Inject
    BounceStore store;

    @Inject
    ServerInstance server;

    @Inject
    QueueSettings settings;

    /**
     * @param report a classified report
     * @return whether it was new
     * @throws dev.mailqueue.queue.control.StoreException when the database fails or another server recorded
     *         the same report at the same moment; nothing was recorded
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public BounceStore.Recorded record(BounceReport report) {
        return store.record(report, server.name(), Instant.now(), settings.softBounces());
    }

    /**
     * @param key a report's key
     * @return true when it has been recorded (after {@link #record} failed: by another server)
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public boolean isRecorded(String key) {
        return store.isRecorded(key);
    }
}
