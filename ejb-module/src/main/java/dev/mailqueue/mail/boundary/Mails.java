package dev.mailqueue.mail.boundary;

import dev.mailqueue.api.EnqueueReceipt;
import dev.mailqueue.api.IdempotencyConflictException;
import dev.mailqueue.api.InvalidMailException;
import dev.mailqueue.api.MailNotFoundException;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.api.MailStateException;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.api.MailView;
import dev.mailqueue.mail.control.IdempotencyKeys;
import dev.mailqueue.mail.control.MailFactory;
import dev.mailqueue.mail.control.MailParts;
import dev.mailqueue.mail.control.MailRequestValidator;
import dev.mailqueue.mail.control.MailViews;
import dev.mailqueue.mail.entity.MailAttempt;
import dev.mailqueue.mail.entity.MailMessage;
import dev.mailqueue.mail.entity.MailRecipient;
import dev.mailqueue.mail.entity.Utc;
import dev.mailqueue.api.MailQueueRemote;
import jakarta.ejb.Stateless;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import jakarta.persistence.PersistenceContext;
import jakarta.persistence.PersistenceException;

import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;

/**
 * The queue's facade: enqueue, look up and cancel mails. Every method joins the caller's JTA
 * transaction (REQUIRED), so a mail enqueued in a transaction that rolls back is never sent.
 */
@Stateless
public class Mails implements MailQueueLocal, MailQueueRemote {

    @PersistenceContext(unitName = "mailqueue")
    EntityManager em;

    @Inject
    MailRequestValidator validator;

    @Inject
    MailFactory factory;

    @Override
    public EnqueueReceipt enqueue(MailRequest request) throws InvalidMailException {
        validator.check(request);
        return persist(factory.createAll(request, Utc.now()), null, request.isPerRecipient());
    }

    @Override
    public EnqueueReceipt enqueue(MailRequest request, String idempotencyKey)
            throws InvalidMailException, IdempotencyConflictException {
        validator.check(request);
        if (idempotencyKey == null) {
            return persist(factory.createAll(request, Utc.now()), null, request.isPerRecipient());
        }
        IdempotencyKeys.check(idempotencyKey);
        List<MailMessage> earlier = em.createNamedQuery(MailMessage.BY_IDEMPOTENCY_KEY, MailMessage.class)
                .setParameter("key", idempotencyKey)
                .getResultList();
        if (!earlier.isEmpty()) {
            EnqueueReceipt receipt = receipt(earlier.get(0), copiesOf(earlier.get(0)));
            receipt.setDuplicate(true);
            return receipt;
        }
        EnqueueReceipt receipt = persist(factory.createAll(request, Utc.now()), idempotencyKey, request.isPerRecipient());
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
    public List<EnqueueReceipt> enqueueAll(List<MailRequest> requests) throws InvalidMailException {
        validator.checkAll(requests);
        LocalDateTime now = Utc.now();
        List<EnqueueReceipt> receipts = new ArrayList<>(requests.size());
        for (MailRequest request : requests) {
            // inserted in JDBC batches at commit (eclipselink.jdbc.batch-writing)
            receipts.add(persist(factory.createAll(request, now), null, request.isPerRecipient()));
        }
        return receipts;
    }

    /** Persists one mail or the copies of one per-recipient enqueue; the first carries the key. */
    private EnqueueReceipt persist(List<MailMessage> rows, String idempotencyKey, boolean perRecipient) {
        MailMessage first = rows.get(0);
        first.setIdempotencyKey(idempotencyKey);
        for (MailMessage mail : rows) {
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
        if (mail == null) {
            throw new MailNotFoundException(id);
        }
        return view(mail);
    }

    @Override
    public MailView cancel(long id) throws MailNotFoundException, MailStateException {
        MailMessage mail = em.find(MailMessage.class, id, LockModeType.PESSIMISTIC_WRITE);
        if (mail == null) {
            throw new MailNotFoundException(id);
        }
        if (mail.getStatus() != MailStatus.QUEUED) {
            throw new MailStateException(id, mail.getStatus(), "be cancelled");
        }
        mail.setStatus(MailStatus.CANCELLED);
        return view(mail);
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
