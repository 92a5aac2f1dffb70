package dev.mailqueue.admin.boundary;

import dev.mailqueue.admin.control.BulkActions;
import dev.mailqueue.admin.control.FilterRules;
import dev.mailqueue.admin.control.MailSearch;
import dev.mailqueue.admin.control.StatisticsReader;
import dev.mailqueue.api.AttemptView;
import dev.mailqueue.api.InvalidFilterException;
import dev.mailqueue.api.MailAdminRemote;
import dev.mailqueue.api.MailFilter;
import dev.mailqueue.api.MailNotFoundException;
import dev.mailqueue.api.MailPage;
import dev.mailqueue.api.MailStateException;
import dev.mailqueue.api.MailView;
import dev.mailqueue.api.QueueStatistics;
import dev.mailqueue.log.control.LogText;
import dev.mailqueue.mail.boundary.Roles;
import dev.mailqueue.mail.control.MailFactory;
import dev.mailqueue.mail.control.MailViews;
import dev.mailqueue.queue.control.OperatorStore;
import dev.mailqueue.mail.entity.MailMessage;
import dev.mailqueue.mail.entity.Utc;
import jakarta.annotation.Resource;
import jakarta.annotation.security.DeclareRoles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ejb.SessionContext;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;

import java.time.Instant;
import java.util.List;
import java.util.logging.Logger;

/**
 * The operator's facade ({@link dev.mailqueue.api.MailAdmin}): search, requeue, cancel, delete, attempt
 * logs and statistics. Only {@code mail-admin} may call it. A filter's criteria are checked first
 * ({@link FilterRules}: a blank or unstorable criterion is an {@link InvalidFilterException} naming it).
 * Actions on one mail join the caller's transaction (REQUIRED); bulk actions run in chunks of 500 mails,
 * each committed on its own ({@link BulkActions}), and are logged with the operator's name and the rows
 * changed.
 */
@Stateless
@DeclareRoles({Roles.SENDER, Roles.ADMIN})
@RolesAllowed(Roles.ADMIN)
public class QueueAdministration implements MailAdminLocal, MailAdminRemote {

    private static final Logger LOG = Logger.getLogger(QueueAdministration.class.getName());

    @PersistenceContext(unitName = "mailqueue")
    EntityManager em;

    @Inject
    BulkActions actions;

    @Inject
    OperatorStore store;

    @Inject
    MailFactory factory;

    @Inject
    MailViews views;

    @Resource
    SessionContext context;

    @Override
    public MailPage search(MailFilter filter, int page, int size, String sort) throws InvalidFilterException {
        return MailSearch.page(em, filter == null ? new MailFilter() : filter, page, size, sort);
    }

    @Override
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED) // each chunk commits on its own
    public int requeue(MailFilter filter) throws InvalidFilterException {
        return logged("requeued", bulk(BulkActions.Action.REQUEUE, filter));
    }

    @Override
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public int cancel(MailFilter filter) throws InvalidFilterException {
        return logged("cancelled", bulk(BulkActions.Action.CANCEL, filter));
    }

    @Override
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public int delete(MailFilter filter) throws InvalidFilterException {
        return logged("deleted", bulk(BulkActions.Action.DELETE, filter));
    }

    private int bulk(BulkActions.Action action, MailFilter filter) throws InvalidFilterException {
        FilterRules.check(filter);
        BulkActions.requireCriteria(filter);
        Instant now = Instant.now();
        int changed = 0;
        for (BulkActions.Chunk chunk = actions.next(action, filter, 0, now); chunk.lastId() >= 0;
             chunk = actions.next(action, filter, chunk.lastId(), now)) {
            changed += chunk.changed();
        }
        return changed;
    }

    @Override
    public MailView requeue(long id) throws MailNotFoundException, MailStateException {
        if (store.requeue(List.of(id), Instant.now(), factory.attempts(), factory.expiry(null, Instant.now())) == 1) {
            return find(id);
        }
        throw refusal(id, "be requeued (only FAILED, EXPIRED, HELD or CANCELLED mail can)");
    }

    @Override
    public MailView cancel(long id) throws MailNotFoundException, MailStateException {
        if (store.cancel(List.of(id), OperatorStore.CANCELLABLE) == 1) {
            return find(id);
        }
        throw refusal(id, "be cancelled (only QUEUED or HELD mail can)");
    }

    @Override
    public void delete(long id) throws MailNotFoundException, MailStateException {
        if (store.delete(List.of(id)) != 1) {
            throw refusal(id, "be deleted while it is being sent");
        }
    }

    @Override
    public List<AttemptView> attempts(long id) throws MailNotFoundException {
        return find(id).getAttempts();
    }

    @Override
    public QueueStatistics statistics() {
        return StatisticsReader.read(em, Utc.now());
    }

    private MailView find(long id) throws MailNotFoundException {
        return views.full(id).orElseThrow(() -> new MailNotFoundException(id));
    }

    /**
     * @return why an action on one mail changed nothing: its status
     * @throws MailNotFoundException when there is no such mail
     */
    private MailStateException refusal(long id, String action) throws MailNotFoundException {
        MailMessage mail = em.find(MailMessage.class, id);
        if (mail == null) {
            throw new MailNotFoundException(id);
        }
        return new MailStateException(id, mail.getStatus(), action);
    }

    private int logged(String what, int rows) {
        LOG.info(() -> LogText.escape(context.getCallerPrincipal().getName()) + " " + what + " " + rows + " mail(s)");
        return rows;
    }

}
