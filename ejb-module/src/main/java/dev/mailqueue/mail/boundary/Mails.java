package dev.mailqueue.mail.boundary;

import dev.mailqueue.api.EnqueueReceipt;
import dev.mailqueue.api.FieldError;
import dev.mailqueue.api.InvalidMailException;
import dev.mailqueue.api.MailNotFoundException;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.api.MailStateException;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.api.MailView;
import dev.mailqueue.api.SenderNotAllowedException;
import dev.mailqueue.mail.control.MailFactory;
import dev.mailqueue.mail.control.MailRequestValidator;
import dev.mailqueue.mail.control.MailViews;
import dev.mailqueue.mail.control.SenderPolicy;
import dev.mailqueue.mail.entity.MailAttempt;
import dev.mailqueue.mail.entity.MailMessage;
import dev.mailqueue.mail.entity.Utc;
import dev.mailqueue.api.MailQueueRemote;
import jakarta.annotation.Resource;
import jakarta.annotation.security.DeclareRoles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ejb.SessionContext;
import jakarta.ejb.Stateless;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import jakarta.persistence.PersistenceContext;

import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The queue's facade: enqueue, look up and cancel mails. Every method joins the caller's JTA
 * transaction (REQUIRED), so a mail enqueued in a transaction that rolls back is never sent.
 *
 * <p>Callers need the role {@code mail-sender} or {@code mail-admin} (else {@code EJBAccessException}).
 * A sender may enqueue only from the From addresses its allow-list names ({@link SenderPolicy}), and
 * sees and cancels only the mails it enqueued: another user's mail is "not found" to it. The user is
 * recorded with every mail.
 */
@Stateless
@DeclareRoles({Roles.SENDER, Roles.ADMIN})
@RolesAllowed({Roles.SENDER, Roles.ADMIN})
public class Mails implements MailQueueLocal, MailQueueRemote {

    @PersistenceContext(unitName = "mailqueue")
    EntityManager em;

    @Inject
    MailRequestValidator validator;

    @Inject
    MailFactory factory;

    @Inject
    SenderPolicy senders;

    @Resource
    SessionContext context;

    @Override
    public EnqueueReceipt enqueue(MailRequest request) throws InvalidMailException, SenderNotAllowedException {
        validator.check(request);
        String caller = caller();
        Optional<FieldError> refused = senders.check(caller, isAdmin(), request, "from");
        if (refused.isPresent()) {
            throw new SenderNotAllowedException(caller, List.of(refused.get()));
        }
        MailMessage mail = factory.create(request, Utc.now());
        mail.setEnqueuedBy(caller);
        em.persist(mail); // the sequence assigns the id here, no flush needed
        return new EnqueueReceipt(mail.getId(), mail.getMessageId(), mail.getStatus());
    }

    @Override
    public List<EnqueueReceipt> enqueueAll(List<MailRequest> requests)
            throws InvalidMailException, SenderNotAllowedException {
        validator.checkAll(requests);
        String caller = caller();
        boolean admin = isAdmin();
        List<FieldError> refused = new ArrayList<>();
        for (int i = 0; i < requests.size(); i++) {
            senders.check(caller, admin, requests.get(i), "[" + i + "].from").ifPresent(refused::add);
        }
        if (!refused.isEmpty()) {
            throw new SenderNotAllowedException(caller, refused);
        }
        LocalDateTime now = Utc.now();
        List<EnqueueReceipt> receipts = new ArrayList<>(requests.size());
        for (MailRequest request : requests) {
            MailMessage mail = factory.create(request, now);
            mail.setEnqueuedBy(caller);
            em.persist(mail); // inserted in JDBC batches at commit (eclipselink.jdbc.batch-writing)
            receipts.add(new EnqueueReceipt(mail.getId(), mail.getMessageId(), mail.getStatus()));
        }
        return receipts;
    }

    @Override
    public MailView find(long id) throws MailNotFoundException {
        MailMessage mail = em.find(MailMessage.class, id);
        if (!visible(mail)) {
            throw new MailNotFoundException(id);
        }
        return view(mail);
    }

    @Override
    public MailView cancel(long id) throws MailNotFoundException, MailStateException {
        MailMessage mail = em.find(MailMessage.class, id, LockModeType.PESSIMISTIC_WRITE);
        if (!visible(mail)) {
            throw new MailNotFoundException(id);
        }
        if (mail.getStatus() != MailStatus.QUEUED) {
            throw new MailStateException(id, mail.getStatus(), "be cancelled");
        }
        mail.setStatus(MailStatus.CANCELLED);
        return view(mail);
    }

    /** An administrator sees every mail, a sender only its own: others' are "not found", not "forbidden". */
    private boolean visible(MailMessage mail) {
        return mail != null && (isAdmin() || Objects.equals(mail.getEnqueuedBy(), caller()));
    }

    private String caller() {
        return context.getCallerPrincipal().getName();
    }

    private boolean isAdmin() {
        return context.isCallerInRole(Roles.ADMIN);
    }

    private MailView view(MailMessage mail) {
        return MailViews.of(mail, em.createNamedQuery(MailAttempt.BY_MAIL, MailAttempt.class)
                .setParameter("mailId", mail.getId())
                .getResultList());
    }
}
