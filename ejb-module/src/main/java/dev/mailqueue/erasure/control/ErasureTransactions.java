package dev.mailqueue.erasure.control;

import dev.mailqueue.queue.control.ErasureReceipts;
import dev.mailqueue.queue.control.ErasureStore;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;

import java.time.Instant;
import java.util.Collection;
import java.util.List;

/**
 * The erasure's writes that must each be one unit of work, whoever calls them: the request (committed before its job
 * starts, so that the job reads it), a retry of the mails that were being sent, and the last move. In the caller's
 * transaction when there is one (a chunk's), else in a new one.
 */
@ApplicationScoped
@Transactional(Transactional.TxType.REQUIRED)
public class ErasureTransactions {

    @Inject
    ErasureStore store;

    @Inject
    ErasureReceipts receipts;

    /** As {@link ErasureReceipts#request}. */
    public long request(Collection<String> addresses, String actor, Instant now) {
        return receipts.request(addresses, actor, now);
    }

    /** As {@link ErasureStore#erase}. */
    public List<Long> erase(long erasureId, List<Long> mailIds) {
        return store.erase(erasureId, mailIds);
    }

    /** As {@link ErasureStore#finish}. */
    public void finish(long erasureId, Instant now) {
        store.finish(erasureId, now);
    }
}
