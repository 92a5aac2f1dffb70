package dev.mailqueue.dispatch.control;

import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;

import java.util.function.Supplier;

/**
 * Runs work with the caller's JTA transaction suspended (NOT_SUPPORTED). A chunk of the dispatch job
 * runs in a transaction of the batch container; SMTP I/O must not: a slow server would hold the chunk's
 * transaction open up to its timeout, and a database connection opened meanwhile (to read an
 * attachment while DATA is written) would be enlisted in it. Everything the claimer sends goes
 * through here. The suspended transaction's timeout still runs; the chunk's checkpoint algorithm keeps
 * chunks short ({@link DispatchCheckpoints}).
 */
@Stateless
public class OutsideTransaction {

    /**
     * @param work what to run
     * @param <T>  its result
     * @return its result
     */
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public <T> T call(Supplier<T> work) {
        return work.get();
    }
}
