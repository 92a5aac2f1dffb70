package dev.mailqueue.erasure.boundary;

import dev.mailqueue.api.ErasureView;
import dev.mailqueue.api.FieldError;
import dev.mailqueue.api.InvalidErasureException;
import dev.mailqueue.api.Roles;
import dev.mailqueue.api.validation.MailAddressValidator;
import dev.mailqueue.erasure.control.ErasureJob;
import dev.mailqueue.erasure.control.ErasureTransactions;
import dev.mailqueue.queue.control.ErasureReceipts;
import dev.mailqueue.log.control.LogText;
import jakarta.annotation.Resource;
import jakarta.annotation.security.DeclareRoles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.annotation.security.RunAs;
import jakarta.batch.operations.JobOperator;
import jakarta.batch.operations.JobSecurityException;
import jakarta.batch.operations.NoSuchJobExecutionException;
import jakarta.batch.runtime.BatchRuntime;
import jakarta.batch.runtime.BatchStatus;
import jakarta.ejb.SessionContext;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.logging.Logger;

/**
 * Erasure of people's data (GDPR art. 17; issue 51, point 4), role {@code mail-admin}: a request records a receipt,
 * suppresses the addresses at once under their keyed hash, and starts the {@code mail-erasure} batch job
 * ({@link dev.mailqueue.queue.control.ErasureStore} says what it removes), visible and restartable in the server's batch tools like the other
 * jobs. Needs the setting {@code mailqueue.erasure.secret} ({@link #enabled}). The operator's name and the erasure's
 * id are logged, never an address.
 */
@Stateless
@DeclareRoles({Roles.ADMIN, Roles.VIEWER, Roles.DISPATCHER})
@RolesAllowed(Roles.ADMIN)
@RunAs(Roles.DISPATCHER) // with security on, batch jobs start only for a user with a batch role (server.xml)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED) // the request commits before its job starts
public class Erasures {

    private static final Logger LOG = Logger.getLogger(Erasures.class.getName());

    /** Most receipts {@link #list} returns. */
    public static final int LIST_MAX = 100;

    @Inject
    ErasureReceipts receipts;

    @Inject
    ErasureTransactions transactions;

    @Resource
    SessionContext context;

    /** @return whether erasures can be made here: {@code mailqueue.erasure.secret} is set */
    public boolean enabled() {
        return receipts.enabled();
    }

    /**
     * @param addresses 1 to {@value ErasureView#MAX_ADDRESSES} bare ASCII addresses
     *                  ({@link MailAddressValidator#problemWith}); case does not matter, repeats count once
     * @return the new erasure, its job started
     * @throws InvalidErasureException naming {@code addresses} or {@code addresses[i]} when the list is empty, too long
     *                                 or holds something that is not an address; nothing was recorded
     * @throws IllegalStateException   when {@code mailqueue.erasure.secret} is not set
     */
    public ErasureView request(List<String> addresses) throws InvalidErasureException {
        List<FieldError> errors = new ArrayList<>();
        if (addresses == null || addresses.isEmpty()) {
            errors.add(new FieldError("addresses", "must name at least one address"));
        } else if (addresses.size() > ErasureView.MAX_ADDRESSES) {
            errors.add(new FieldError("addresses", "must name at most " + ErasureView.MAX_ADDRESSES + " addresses"));
        } else {
            for (int i = 0; i < addresses.size(); i++) {
                String problem = addresses.get(i) == null ? "must not be null"
                        : MailAddressValidator.problemWith(addresses.get(i));
                if (problem != null) {
                    errors.add(new FieldError("addresses[" + i + "]", problem));
                }
            }
        }
        if (!errors.isEmpty()) {
            throw new InvalidErasureException(errors);
        }
        String actor = context.getCallerPrincipal().getName();
        long id = transactions.request(addresses, actor, Instant.now());
        LOG.info(() -> LogText.escape(actor) + " asked for erasure " + id + " of " + addresses.size() + " address(es)");
        return start(id);
    }

    /**
     * Starts the job of an erasure again, as a new job instance: after a server restart (which forgets the batch job
     * repository) or a failed job.
     *
     * @param id an erasure
     * @return it, its job started; or as it is when it completed or its job still runs
     * @throws IllegalArgumentException when there is no such erasure
     */
    public ErasureView resume(long id) {
        ErasureView erasure = find(id).orElseThrow(() -> new IllegalArgumentException("no erasure " + id));
        if (erasure.completedAt() != null || isActive(erasure.jobStatus())) {
            return erasure;
        }
        return start(id);
    }

    /**
     * @param id an erasure
     * @return it, or empty when there is none
     */
    @RolesAllowed({Roles.ADMIN, Roles.VIEWER})
    public Optional<ErasureView> find(long id) {
        return receipts.receipt(id).map(Erasures::view);
    }

    /** @return the latest {@value #LIST_MAX} erasures, newest first */
    @RolesAllowed({Roles.ADMIN, Roles.VIEWER})
    public List<ErasureView> list() {
        return receipts.receipts(LIST_MAX).stream().map(Erasures::view).toList();
    }

    private ErasureView start(long id) {
        Properties parameters = new Properties();
        parameters.setProperty(ErasureJob.ERASURE_ID, Long.toString(id));
        long execution = BatchRuntime.getJobOperator().start(ErasureJob.NAME, parameters);
        receipts.started(id, execution);
        return find(id).orElseThrow();
    }

    private static ErasureView view(ErasureReceipts.Receipt r) {
        LinkedHashMap<String, Long> counts = new LinkedHashMap<>();
        r.counts().forEach((name, n) -> counts.put(name.toLowerCase(Locale.ROOT), n));
        return new ErasureView(r.id(), r.requestedAt(), r.requestedBy(), r.addresses(), r.upToMailId(),
                r.jobExecutionId(), jobStatus(r.jobExecutionId()), r.completedAt(), counts);
    }

    private static String jobStatus(Long execution) {
        if (execution == null) {
            return "UNKNOWN";
        }
        try {
            JobOperator jobs = BatchRuntime.getJobOperator();
            return jobs.getJobExecution(execution).getBatchStatus().name();
        } catch (NoSuchJobExecutionException | JobSecurityException e) {
            return "UNKNOWN";
        }
    }

    private static boolean isActive(String status) {
        return status.equals(BatchStatus.STARTING.name()) || status.equals(BatchStatus.STARTED.name())
                || status.equals(BatchStatus.STOPPING.name());
    }
}
