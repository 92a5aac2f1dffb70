package dev.mailqueue.mail.control;

import dev.mailqueue.api.AttachmentView;
import dev.mailqueue.api.MailView;
import dev.mailqueue.mail.entity.MailAttachment;
import dev.mailqueue.mail.entity.MailHeader;
import dev.mailqueue.mail.entity.MailMessage;
import jakarta.persistence.EntityManager;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes and reads what a mail stores beside its row: attachments (MAIL_ATTACHMENT) and custom header
 * fields (MAIL_HEADER). Writing happens in the caller's transaction, the one that inserts the mails, so
 * a mail is stored whole or not at all. Reading serves a whole claimed chunk with one query per table.
 */
public final class MailParts {

    private MailParts() {
    }

    /**
     * Persists the parts of mails just persisted in this transaction. When any mail has parts the mail
     * rows are flushed first: the parts' foreign keys need them, and no JPA relation orders the inserts.
     *
     * @param em    the transaction's entity manager
     * @param mails mails already passed to {@link EntityManager#persist(Object)}, so with ids
     */
    public static void persist(EntityManager em, List<MailMessage> mails) {
        if (mails.stream().allMatch(m -> m.getAttachments().isEmpty() && m.getHeaders().isEmpty())) {
            return;
        }
        em.flush();
        for (MailMessage mail : mails) {
            for (MailAttachment attachment : mail.getAttachments()) {
                attachment.setMailId(mail.getId());
                em.persist(attachment);
            }
            for (MailHeader header : mail.getHeaders()) {
                header.setMailId(mail.getId());
                em.persist(header);
            }
        }
    }

    /**
     * Reads the attachments and custom header fields of the given mails (two queries in all) and sets
     * them on each mail.
     *
     * @param em    an entity manager in a transaction
     * @param mails the mails, e.g. a claimed chunk; at most a few hundred (the ids go in an IN list)
     */
    public static void load(EntityManager em, List<MailMessage> mails) {
        if (mails.isEmpty()) {
            return;
        }
        List<Long> ids = mails.stream().map(MailMessage::getId).toList();
        Map<Long, List<MailAttachment>> attachments = new HashMap<>();
        em.createNamedQuery(MailAttachment.OF_MAILS, MailAttachment.class).setParameter("ids", ids).getResultList()
                .forEach(a -> attachments.computeIfAbsent(a.getMailId(), id -> new ArrayList<>()).add(a));
        Map<Long, List<MailHeader>> headers = new HashMap<>();
        em.createNamedQuery(MailHeader.OF_MAILS, MailHeader.class).setParameter("ids", ids).getResultList()
                .forEach(h -> headers.computeIfAbsent(h.getMailId(), id -> new ArrayList<>()).add(h));
        for (MailMessage mail : mails) {
            mail.setAttachments(attachments.getOrDefault(mail.getId(), new ArrayList<>()));
            mail.setHeaders(headers.getOrDefault(mail.getId(), new ArrayList<>()));
        }
    }

    /**
     * Adds a mail's attachment names, types and sizes (not their bytes) and its custom header fields to
     * its view.
     *
     * @param em   an entity manager
     * @param view the view of one mail, with its id
     */
    public static void describe(EntityManager em, MailView view) {
        List<Object[]> attachments = em.createQuery("SELECT a.filename, a.contentType, a.sizeBytes FROM MailAttachment a"
                + " WHERE a.mailId = :id ORDER BY a.seqNo", Object[].class).setParameter("id", view.getId()).getResultList();
        List<AttachmentView> files = new ArrayList<>();
        attachments.forEach(a -> files.add(new AttachmentView((String) a[0], (String) a[1], ((Number) a[2]).longValue())));
        view.setAttachments(files);
        Map<String, String> headers = new LinkedHashMap<>();
        em.createNamedQuery(MailHeader.OF_MAILS, MailHeader.class).setParameter("ids", List.of(view.getId()))
                .getResultList().forEach(h -> headers.put(h.getName(), h.getValue()));
        view.setHeaders(headers);
    }
}
