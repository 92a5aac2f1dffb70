package dev.mailqueue.mail.boundary;

import dev.mailqueue.api.EnqueueReceipt;
import dev.mailqueue.api.InvalidMailException;
import dev.mailqueue.api.MailNotFoundException;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.api.MailStateException;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.api.MailView;
import dev.mailqueue.mail.control.MailFactory;
import dev.mailqueue.mail.control.MailParts;
import dev.mailqueue.mail.control.MailRequestValidator;
import dev.mailqueue.mail.control.MailViews;
import dev.mailqueue.mail.entity.MailAttempt;
import dev.mailqueue.mail.entity.MailMessage;
import dev.mailqueue.mail.entity.Utc;
import dev.mailqueue.api.MailQueueRemote;
import jakarta.ejb.Stateless;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import jakarta.persistence.PersistenceContext;

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
        MailMessage mail = factory.create(request, Utc.now());
        em.persist(mail); // the sequence assigns the id here, no flush needed
        MailParts.persist(em, List.of(mail)); // attachments and headers, in this same transaction
        return new EnqueueReceipt(mail.getId(), mail.getMessageId(), mail.getStatus());
    }

    @Override
    public List<EnqueueReceipt> enqueueAll(List<MailRequest> requests) throws InvalidMailException {
        validator.checkAll(requests);
        LocalDateTime now = Utc.now();
        List<EnqueueReceipt> receipts = new ArrayList<>(requests.size());
        List<MailMessage> mails = new ArrayList<>(requests.size());
        for (MailRequest request : requests) {
            MailMessage mail = factory.create(request, now);
            em.persist(mail); // inserted in JDBC batches at commit (eclipselink.jdbc.batch-writing)
            mails.add(mail);
            receipts.add(new EnqueueReceipt(mail.getId(), mail.getMessageId(), mail.getStatus()));
        }
        MailParts.persist(em, mails); // attachments and headers, in this same transaction
        return receipts;
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
                .getResultList());
        MailParts.describe(em, view); // attachment names and sizes, custom headers
        return view;
    }
}
