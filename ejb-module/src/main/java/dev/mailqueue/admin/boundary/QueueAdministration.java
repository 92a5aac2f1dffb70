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
import dev.mailqueue.mail.control.MailViews;
import dev.mailqueue.mail.entity.MailAttempt;
import dev.mailqueue.mail.entity.MailMessage;
import dev.mailqueue.mail.entity.Utc;
import jakarta.annotation.Resource;
import jakarta.annotation.security.DeclareRoles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ejb.SessionContext;
import jakarta.ejb.Stateless;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;

import java.util.List;
import java.util.logging.Logger;

/**
 * The operator's facade ({@link dev.mailqueue.api.MailAdmin}): search, requeue, cancel, delete, attempt
 * logs and statistics. Only {@code mail-admin} may call it. A filter's criteria are checked first
 * ({@link FilterRules}: a blank or unstorable criterion is an {@link InvalidFilterException} naming it).
 * Bulk actions run in the caller's transaction (REQUIRED) and are logged with the operator's name and
 * the rows changed.
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

    @Resource
    SessionContext context;

    @Override
    public MailPage search(MailFilter filter, int page, int size, String sort) throws InvalidFilterException {
        return MailSearch.page(em, filter == null ? new MailFilter() : filter, page, size, sort);
    }

    @Override
    public int requeue(MailFilter filter) throws InvalidFilterException {
        FilterRules.check(filter);
        return logged("requeued", actions.requeue(em, filter, Utc.now()));
    }

    @Override
    public int cancel(MailFilter filter) throws InvalidFilterException {
        FilterRules.check(filter);
        return logged("cancelled", actions.cancel(em, filter));
    }

    @Override
    public int delete(MailFilter filter) throws InvalidFilterException {
        FilterRules.check(filter);
        return logged("deleted", actions.delete(em, filter));
    }

    @Override
    public MailView requeue(long id) throws MailNotFoundException, MailStateException {
        if (oneChanged(() -> actions.requeue(em, new MailFilter().withIds(id), Utc.now()))) {
            return find(id);
        }
        throw refusal(id, "be requeued (only FAILED, EXPIRED, HELD or CANCELLED mail can)");
    }

    @Override
    public MailView cancel(long id) throws MailNotFoundException, MailStateException {
        if (oneChanged(() -> actions.cancel(em, new MailFilter().withIds(id)))) {
            return find(id);
        }
        throw refusal(id, "be cancelled (only QUEUED or HELD mail can)");
    }

    @Override
    public void delete(long id) throws MailNotFoundException, MailStateException {
        if (!oneChanged(() -> actions.delete(em, new MailFilter().withIds(id)))) {
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
        MailMessage mail = em.find(MailMessage.class, id);
        if (mail == null) {
            throw new MailNotFoundException(id);
        }
        return MailViews.of(mail, em.createNamedQuery(MailAttempt.BY_MAIL, MailAttempt.class)
                .setParameter("mailId", id).getResultList());
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

    private boolean oneChanged(Action action) {
        try {
            return action.run() == 1;
        } catch (InvalidFilterException e) {
            throw new IllegalStateException("a filter by id is never empty", e);
        }
    }

    private int logged(String what, int rows) {
        LOG.info(() -> LogText.escape(context.getCallerPrincipal().getName()) + " " + what + " " + rows + " mail(s)");
        return rows;
    }

    @FunctionalInterface
    private interface Action {
        int run() throws InvalidFilterException;
    }
}
