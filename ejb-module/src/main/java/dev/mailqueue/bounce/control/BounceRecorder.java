package dev.mailqueue.bounce.control;

import dev.mailqueue.queue.control.BounceReport;
import dev.mailqueue.account.control.Account;
import dev.mailqueue.account.control.Accounts;
import dev.mailqueue.server.control.ServerInstance;
import dev.mailqueue.queue.control.BounceStore;
import dev.mailqueue.settings.control.QueueSettings;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;

import java.time.Instant;
import java.util.Optional;

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

    @Inject
    Accounts accounts;

    /**
     * @param report a classified report
     * @return whether it was new
     * @throws dev.mailqueue.queue.control.StoreException when the database fails or another server recorded
     *         the same report at the same moment; nothing was recorded
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public BounceStore.Recorded record(BounceReport report) {
        return store.record(report, server.name(), Instant.now(), settings.softBounces(), this::usesVerp);
    }

    /**
     * Records a report as UNRECOGNISED, naming no mail, after recording it as it read failed for a reason that
     * will not pass: its message may then be deleted.
     *
     * @param key the report's key
     * @return whether it was new
     * @throws dev.mailqueue.queue.control.StoreException when the database fails
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public BounceStore.Recorded recordUnrecognised(String key) {
        return store.recordUnrecognised(key, Instant.now());
    }

    /** @return whether the account of that name (null: the default account) sends with a VERP envelope sender */
    private boolean usesVerp(String account) {
        return (account == null ? Optional.of(accounts.defaultAccount()) : accounts.find(account))
                .map(Account::usesVerp).orElse(false);
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
