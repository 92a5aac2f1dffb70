package dev.mailqueue.mail.boundary;

import dev.mailqueue.api.EnqueueReceipt;
import dev.mailqueue.api.IdempotencyConflictException;
import dev.mailqueue.api.FieldError;
import dev.mailqueue.api.InvalidMailException;
import dev.mailqueue.api.MailNotFoundException;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.api.MailStateException;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.api.MailView;
import dev.mailqueue.mail.control.IdempotencyKeys;
import dev.mailqueue.api.SenderNotAllowedException;
import dev.mailqueue.mail.control.MailFactory;
import dev.mailqueue.mail.control.MailParts;
import dev.mailqueue.mail.control.MailRequestValidator;
import dev.mailqueue.mail.control.MailViews;
import dev.mailqueue.mail.control.SenderPolicy;
import dev.mailqueue.mail.entity.MailAttempt;
import dev.mailqueue.mail.entity.MailMessage;
import dev.mailqueue.mail.entity.MailRecipient;
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
import jakarta.persistence.PersistenceException;

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
        String caller = checkSender(request);
        return persist(factory.createAll(request, Utc.now()), caller, null, request.isPerRecipient());
    }

    @Override
    public EnqueueReceipt enqueue(MailRequest request, String idempotencyKey)
            throws InvalidMailException, SenderNotAllowedException, IdempotencyConflictException {
        validator.check(request);
        String caller = checkSender(request);
        if (idempotencyKey == null) {
            return persist(factory.createAll(request, Utc.now()), caller, null, request.isPerRecipient());
        }
        IdempotencyKeys.check(idempotencyKey);
        String scoped = IdempotencyKeys.scoped(caller, idempotencyKey); // one user's key never finds another's mail
        List<MailMessage> earlier = em.createNamedQuery(MailMessage.BY_IDEMPOTENCY_KEY, MailMessage.class)
                .setParameter("key", scoped)
                .getResultList();
        if (!earlier.isEmpty()) {
            EnqueueReceipt receipt = receipt(earlier.get(0), copiesOf(earlier.get(0)));
            receipt.setDuplicate(true);
            return receipt;
        }
        EnqueueReceipt receipt = persist(factory.createAll(request, Utc.now()), caller, scoped, request.isPerRecipient());
        try {
            em.flush(); // a racing duplicate fails here, on the key's unique constraint, not at commit
        } catch (PersistenceException e) {
            if (IdempotencyKeys.isUniqueViolation(e)) {
                throw new IdempotencyConflictException(idempotencyKey);
            }
            throw e;
        }
        return receipt;
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
            // inserted in JDBC batches at commit (eclipselink.jdbc.batch-writing)
            receipts.add(persist(factory.createAll(request, now), caller, null, request.isPerRecipient()));
        }
        return receipts;
    }

    /**
     * @return the caller, once its From address passed the allow-list
     * @throws SenderNotAllowedException when the caller may not send as the request's From
     */
    private String checkSender(MailRequest request) throws SenderNotAllowedException {
        String caller = caller();
        Optional<FieldError> refused = senders.check(caller, isAdmin(), request, "from");
        if (refused.isPresent()) {
            throw new SenderNotAllowedException(caller, List.of(refused.get()));
        }
        return caller;
    }

    /** Persists one mail or the copies of one per-recipient enqueue; the first carries the key. */
    private EnqueueReceipt persist(List<MailMessage> rows, String caller, String idempotencyKey, boolean perRecipient) {
        MailMessage first = rows.get(0);
        first.setIdempotencyKey(idempotencyKey);
        for (MailMessage mail : rows) {
            mail.setEnqueuedBy(caller);
            em.persist(mail); // the sequence assigns the id here, no flush needed
        }
        MailParts.persist(em, rows); // attachments and headers, in this same transaction
        if (!perRecipient) {
            return receipt(first, List.of());
        }
        rows.forEach(mail -> mail.setCopyOf(first.getId()));
        return receipt(first, rows);
    }

    private List<MailMessage> copiesOf(MailMessage first) {
        if (first.getCopyOf() == null) {
            return List.of();
        }
        return em.createNamedQuery(MailMessage.COPIES, MailMessage.class)
                .setParameter("first", first.getCopyOf())
                .getResultList();
    }

    private static EnqueueReceipt receipt(MailMessage mail, List<MailMessage> copies) {
        EnqueueReceipt receipt = new EnqueueReceipt(mail.getId(), mail.getMessageId(), mail.getStatus());
        receipt.setCopies(copies.stream()
                .map(copy -> new EnqueueReceipt(copy.getId(), copy.getMessageId(), copy.getStatus()))
                .toList());
        return receipt;
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
        MailView view = MailViews.of(mail, em.createNamedQuery(MailAttempt.BY_MAIL, MailAttempt.class)
                        .setParameter("mailId", mail.getId())
                        .getResultList(),
                em.createNamedQuery(MailRecipient.BY_MAILS, MailRecipient.class)
                        .setParameter("ids", List.of(mail.getId()))
                        .getResultList());
        MailParts.describe(em, view); // attachment names and sizes, custom headers
        return view;
    }
}
