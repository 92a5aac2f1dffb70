package dev.mailqueue.erasure.control;

import dev.mailqueue.queue.control.ErasureReceipts;
import dev.mailqueue.queue.control.ErasureStore;
import jakarta.batch.api.BatchProperty;
import jakarta.batch.api.chunk.AbstractItemReader;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Inject;
import jakarta.inject.Named;

import java.io.Serializable;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

/**
 * Reads the ids of the mails an erasure must delete ({@link ErasureStore#find}), a window of
 * {@value ErasureStore#WINDOW} mail ids a query, from the first mail to the highest id when the erasure was asked
 * for. The checkpoint is the last id read, or the end of the last window when all of its mails were read: a restart
 * reads on from there.
 */
@Named("ErasureReader")
@Dependent // a new instance per step execution, as batch artifacts need
public class ErasureReader extends AbstractItemReader {

    @Inject
    @BatchProperty(name = ErasureJob.ERASURE_ID)
    String erasureId;

    @Inject
    ErasureStore store;

    @Inject
    ErasureReceipts receipts;

    private final Deque<Long> page = new ArrayDeque<>();
    private List<String> addresses;
    private long upTo;
    private long scannedTo;
    private long lastRead;

    @Override
    public void open(Serializable checkpoint) {
        long id = ErasureJob.id(erasureId);
        addresses = receipts.addresses(id);
        upTo = receipts.receipt(id).orElseThrow(() -> new IllegalStateException("no erasure " + id)).upToMailId();
        scannedTo = checkpoint == null ? 0 : (Long) checkpoint;
        lastRead = scannedTo;
    }

    /** @return the next mail to delete, or null when none is left (ends the step) */
    @Override
    public Object readItem() {
        while (page.isEmpty() && scannedTo < upTo && !addresses.isEmpty()) {
            ErasureStore.Found found = store.find(addresses, scannedTo, upTo);
            page.addAll(found.mailIds());
            scannedTo = found.scannedTo();
        }
        Long id = page.poll();
        if (id != null) {
            lastRead = id;
        }
        return id;
    }

    @Override
    public Serializable checkpointInfo() {
        return page.isEmpty() ? scannedTo : lastRead;
    }
}
