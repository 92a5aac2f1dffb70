package dev.mailqueue.mail.control;

import dev.mailqueue.address.control.InvalidAddressException;
import dev.mailqueue.address.control.Mailbox;
import dev.mailqueue.address.control.MailboxParser;
import dev.mailqueue.api.AddressView;
import dev.mailqueue.api.AttachmentView;
import dev.mailqueue.api.AttemptView;
import dev.mailqueue.api.MailDetail;
import dev.mailqueue.api.MailNotFoundException;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.api.MailView;
import dev.mailqueue.api.RecipientOutcome;
import dev.mailqueue.api.RecipientView;
import dev.mailqueue.unsubscribe.control.UnsubscribeLinks;
import dev.mailqueue.queue.entity.AddressLists;
import dev.mailqueue.queue.entity.AttemptOutcome;
import dev.mailqueue.queue.entity.MailAttachment;
import dev.mailqueue.queue.entity.MailAttempt;
import dev.mailqueue.queue.entity.MailHeader;
import dev.mailqueue.queue.entity.MailMessage;
import dev.mailqueue.queue.entity.MailRecipient;
import dev.mailqueue.queue.entity.MailState;
import dev.mailqueue.queue.entity.Utc;
import dev.mailqueue.queue.control.AddressNames;
import dev.mailqueue.queue.control.MailLifecycle;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.persistence.Tuple;

import java.time.Instant;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The one assembler of {@link MailView}: a mail answers in the same shape wherever one mail is returned
 * (the sender's GET, the EJB's find and cancel, the operator's requeue, cancel and attempt log): its content
 * ({@link MailMessage}), where it stands ({@link MailState}), attempt log, per-recipient outcomes (the latest
 * result of each recipient), attachment names, types and sizes (not their bytes) and custom
 * header fields; the operator's console reads one mail with its bodies too ({@link #detail}). A search
 * page lists mails in the summary shape ({@link #summary}): the row's
 * columns without bodies, attempt log, recipients or parts, as README says. Reads through JPA, in the
 * caller's transaction.
 */
@ApplicationScoped
public class MailViews {

    /** The attributes of {@link MailMessage} a summary shows, as a search selects them (never the bodies). */
    public static final List<String> SUMMARY_COLUMNS = List.of("id", "messageId", "priority", "fromAddress",
            "toAddresses", "ccAddresses", "bccAddresses", "subject", "createdAt", "enqueuedBy", "smtpAccount", "copyOf",
            "reference", "campaign", "tags");

    /**
     * The attributes of {@link MailState} a summary shows, by the name of the view's field (the alias a search
     * selects it as), in the order a search selects them.
     */
    public static final Map<String, String> SUMMARY_STATE_COLUMNS = summaryStateColumns();

    private static Map<String, String> summaryStateColumns() {
        Map<String, String> columns = new LinkedHashMap<>();
        columns.put("status", "status");
        columns.put("notBefore", "dueAt");
        columns.put("attemptsRemaining", "attemptsLeft");
        columns.put("lastAttemptAt", "lastAttemptAt");
        columns.put("sentAt", "sentAt");
        columns.put("lastError", "lastError");
        columns.put("claimedAt", "claimedAt");
        columns.put("expiresAt", "expiresAt");
        return java.util.Collections.unmodifiableMap(columns);
    }

    @PersistenceContext(unitName = "mailqueue")
    EntityManager em;

    /**
     * @param id a mail's id
     * @return the mail in full, or empty when there is no such mail
     */
    public Optional<MailView> full(long id) {
        em.clear(); // the store changes rows in SQL: never answer from what this transaction read before
        MailMessage mail = em.find(MailMessage.class, id);
        MailState state = mail == null ? null : em.find(MailState.class, id);
        return state == null ? Optional.empty() : Optional.of(fill(new MailView(), mail, state, recipientRows(id)));
    }

    /**
     * @param id a mail's id
     * @return the mail as the operator's console shows it: in full, with the From name, Reply-To, both
     *         bodies, its list, when it was first attempted and every recipient's outcome; empty when there
     *         is no such mail
     */
    public Optional<MailDetail> detail(long id) {
        em.clear();
        MailMessage mail = em.find(MailMessage.class, id);
        MailState state = mail == null ? null : em.find(MailState.class, id);
        if (state == null) { // no such mail, or deleted between the two reads
            return Optional.empty();
        }
        List<MailRecipient> recipients = recipientRows(id);
        MailDetail view = fill(new MailDetail(), mail, state, recipients);
        view.setFromName(mail.getFromName());
        view.setReplyTo(mail.getReplyTo());
        view.setText(mail.getTextBody());
        view.setHtml(mail.getHtmlBody());
        view.setUnsubscribeList(mail.getUnsubscribeList());
        view.setFirstAttemptAt(view.getAttempts().stream()
                .filter(a -> ATTEMPTS.contains(a.getOutcome())).map(AttemptView::getStartedAt).min(Instant::compareTo)
                .orElse(null));
        Map<String, MailRecipient> rows = new HashMap<>();
        recipients.forEach(r -> rows.put(r.getAddress().toLowerCase(Locale.ROOT), r));
        AttemptView settling = settledBy(view.getAttempts(), state.getStatus());
        List<RecipientOutcome> outcomes = new ArrayList<>();
        for (AddressView address : view.getAddresses()) {
            if (RECIPIENT_FIELDS.contains(address.getField())) {
                outcomes.add(outcome(address, rows.get(address.getAddress().toLowerCase(Locale.ROOT)), state.getStatus(),
                        settling));
            }
        }
        view.setRecipientOutcomes(outcomes);
        return Optional.of(view);
    }

    /**
     * @param id    a mail's id
     * @param index an attachment's position among its attachments (as {@link MailView#getAttachments()}
     *              lists them), from 0
     * @return the attachment with its bytes, or empty when the mail has no attachment there or its content was
     *         removed ({@link MailView#getContentRemovedAt()})
     * @throws MailNotFoundException when there is no such mail
     */
    public Optional<MailAttachment> attachment(long id, int index) throws MailNotFoundException {
        em.clear();
        List<Object[]> mail = em.createQuery("SELECT m.copyOf, m.contentRemovedAt FROM MailMessage m WHERE m.id = :id",
                Object[].class).setParameter("id", id).getResultList();
        if (mail.isEmpty()) {
            throw new MailNotFoundException(id);
        }
        if (mail.get(0)[1] != null) { // its content was removed (a copy's shared files may still be there)
            return Optional.empty();
        }
        long filesOf = mail.get(0)[0] == null ? id : (Long) mail.get(0)[0]; // copies share the first's files
        return em.createQuery("SELECT a FROM MailAttachment a WHERE a.mailId = :id ORDER BY a.seqNo", MailAttachment.class)
                .setParameter("id", filesOf).setFirstResult(index).setMaxResults(1).getResultStream().findFirst();
    }

    /** Outcomes of the attempt log that are attempts of the queue's (not reports that came back later). */
    private static final Set<String> ATTEMPTS = AttemptOutcome.ATTEMPTS.stream().map(Enum::name)
            .collect(java.util.stream.Collectors.toUnmodifiableSet());

    private static final Set<String> RECIPIENT_FIELDS = Set.of("to", "cc", "bcc");

    /**
     * @param attempts a mail's attempt log, oldest first (as {@link MailView#getAttempts()})
     * @param mail     the mail's status
     * @return the attempt that gave the mail its status: the latest SMTP attempt, when its outcome is that status
     *         ({@code SENT}, or {@code FAILED} once the queue gave up); null when no attempt did (a mail still in
     *         the queue, held, cancelled, expired or suppressed)
     */
    static AttemptView settledBy(List<AttemptView> attempts, MailStatus mail) {
        AttemptView latest = null;
        for (AttemptView attempt : attempts) {
            if (ATTEMPTS.contains(attempt.getOutcome())) {
                latest = attempt;
            }
        }
        return latest != null && latest.getOutcome().equals(mail.name()) ? latest : null;
    }

    /**
     * @param address  a recipient
     * @param row      its own row, or null when every recipient shares the mail's status
     * @param mail     the mail's status
     * @param settling the attempt that gave the mail its status ({@link #settledBy}), or null: a recipient without a
     *                 row of its own was settled by it, in the one SMTP transaction, and shows its reply
     * @return where it stands
     */
    static RecipientOutcome outcome(AddressView address, MailRecipient row, MailStatus mail, AttemptView settling) {
        if (row != null) {
            return new RecipientOutcome(address.getField(), address.getAddress(), address.getName(),
                    row.getStatus().name(), true, row.getReplyCode(), row.getEnhancedStatus(), row.getReplyText(),
                    Utc.toInstant(row.getUpdatedAt()));
        }
        if (!MailLifecycle.isFinished(mail)) {
            return RecipientOutcome.shared(address.getField(), address.getAddress(), address.getName(), "PENDING");
        }
        if (settling == null) {
            return RecipientOutcome.shared(address.getField(), address.getAddress(), address.getName(), mail.name());
        }
        return new RecipientOutcome(address.getField(), address.getAddress(), address.getName(), mail.name(), false,
                settling.getSmtpReplyCode(), settling.getEnhancedStatus(), settling.getSmtpReplyText(),
                settling.getFinishedAt());
    }

    /**
     * @return the mail's per-recipient rows, the latest of each recipient (none while every recipient shares the
     *         mail's status)
     */
    private List<MailRecipient> recipientRows(long id) {
        return em.createNamedQuery(MailRecipient.BY_MAILS, MailRecipient.class).setParameter("ids", List.of(id))
                .getResultList();
    }

    private <V extends MailView> V fill(V view, MailMessage mail, MailState state, List<MailRecipient> recipients) {
        long id = mail.getId();
        view.setId(mail.getId());
        view.setMessageId(mail.getMessageId());
        view.setStatus(state.getStatus());
        view.setPriority(mail.getPriority());
        view.setFrom(mail.getFromAddress());
        view.setTo(new ArrayList<>(mail.getTo()));
        view.setCc(new ArrayList<>(mail.getCc()));
        view.setBcc(new ArrayList<>(mail.getBcc()));
        view.setAddresses(addresses(mail));
        view.setSubject(mail.getSubject());
        view.setCreatedAt(Utc.toInstant(mail.getCreatedAt()));
        view.setNotBefore(Utc.toInstant(state.getDueAt()));
        view.setClaimedAt(Utc.toInstant(state.getClaimedAt()));
        view.setAttemptsRemaining(state.getAttemptsLeft());
        view.setLastAttemptAt(Utc.toInstant(state.getLastAttemptAt()));
        view.setSentAt(Utc.toInstant(state.getSentAt()));
        view.setLastError(state.getLastError());
        view.setAccount(mail.getSmtpAccount());
        view.setEnqueuedBy(mail.getEnqueuedBy());
        view.setExpiresAt(Utc.toInstant(state.getExpiresAt()));
        view.setCopyOf(mail.getCopyOf());
        view.setReference(mail.getReference());
        view.setCampaign(mail.getCampaign());
        view.setTags(tagList(mail.getTags()));
        view.setAttempts(em.createNamedQuery(MailAttempt.BY_MAIL, MailAttempt.class).setParameter("mailId", id)
                .getResultStream().map(MailViews::attempt).collect(ArrayList::new, List::add, List::addAll));
        view.setRecipients(recipients.stream()
                .map(r -> new RecipientView(r.getAddress(), r.getStatus().name(), r.getReplyCode(),
                        r.getEnhancedStatus(), r.getReplyText())).toList());
        view.setContentRemovedAt(Utc.toInstant(mail.getContentRemovedAt()));
        List<AttachmentView> files = new ArrayList<>();
        if (mail.getContentRemovedAt() == null) { // removed: none, though a copy's shared files may live on for others
            em.createQuery("SELECT a.filename, a.contentType, a.sizeBytes FROM MailAttachment a WHERE a.mailId = :id"
                            + " ORDER BY a.seqNo", Object[].class).setParameter("id", mail.getCopyOf() == null ? id : mail.getCopyOf()) // copies share the first's files
                    .getResultList().forEach(a -> files.add(new AttachmentView((String) a[0], (String) a[1], ((Number) a[2]).longValue())));
        }
        view.setAttachments(files);
        Map<String, String> headers = new LinkedHashMap<>();
        em.createNamedQuery(MailHeader.OF_MAILS, MailHeader.class).setParameter("ids", List.of(id))
                .getResultList().stream()
                // A mail of a list: its List-Unsubscribe fields are the queue's, made at dispatch (earlier versions
                // stored them, with a signed link that is no sender's to read); otherwise they are the sender's own.
                .filter(h -> mail.getUnsubscribeList() == null || !UnsubscribeLinks.isUnsubscribeField(h.getName()))
                .forEach(h -> headers.put(h.getName(), h.getValue()));
        view.setHeaders(headers);
        return view;
    }

    /** @return From, Reply-To and the recipients with their names and both forms of their domains */
    static List<AddressView> addresses(MailMessage mail) {
        AddressNames names = AddressNames.decode(mail.getAddressNames());
        List<AddressView> result = new ArrayList<>();
        result.add(address("from", mail.getFromName(), mail.getFromAddress()));
        if (mail.getReplyTo() != null) {
            result.add(address("replyTo", names.replyTo(), mail.getReplyTo()));
        }
        List<String> to = mail.getTo();
        for (int i = 0; i < to.size(); i++) {
            result.add(address("to", names.toName(i), to.get(i)));
        }
        List<String> cc = mail.getCc();
        for (int i = 0; i < cc.size(); i++) {
            result.add(address("cc", names.ccName(i), cc.get(i)));
        }
        List<String> bcc = mail.getBcc();
        for (int i = 0; i < bcc.size(); i++) {
            result.add(address("bcc", names.bccName(i), bcc.get(i)));
        }
        return result;
    }

    private static AddressView address(String field, String name, String stored) {
        try {
            Mailbox mailbox = MailboxParser.parse(stored);
            return new AddressView(field, name, mailbox.address(), mailbox.unicodeAddress(), mailbox.needsSmtpUtf8());
        } catch (InvalidAddressException e) { // a row stored under other rules: shown as it is
            return new AddressView(field, name, stored, stored, false);
        }
    }

    /**
     * @param row a search row with the {@link #SUMMARY_COLUMNS} and the keys of {@link #SUMMARY_STATE_COLUMNS} as
     *            aliases
     * @return the mail in the summary shape
     */
    public static MailView summary(Tuple row) {
        MailView view = new MailView();
        view.setId(row.get("id", Long.class));
        view.setMessageId(row.get("messageId", String.class));
        view.setStatus(row.get("status", MailStatus.class));
        view.setPriority(row.get("priority", Integer.class));
        view.setFrom(row.get("fromAddress", String.class));
        view.setTo(AddressLists.split(row.get("toAddresses", String.class)));
        view.setCc(AddressLists.split(row.get("ccAddresses", String.class)));
        view.setBcc(AddressLists.split(row.get("bccAddresses", String.class)));
        view.setSubject(row.get("subject", String.class));
        view.setCreatedAt(Utc.toInstant(row.get("createdAt", LocalDateTime.class)));
        view.setNotBefore(Utc.toInstant(row.get("notBefore", LocalDateTime.class)));
        view.setClaimedAt(Utc.toInstant(row.get("claimedAt", LocalDateTime.class)));
        view.setAttemptsRemaining(row.get("attemptsRemaining", Integer.class));
        view.setLastAttemptAt(Utc.toInstant(row.get("lastAttemptAt", LocalDateTime.class)));
        view.setSentAt(Utc.toInstant(row.get("sentAt", LocalDateTime.class)));
        view.setLastError(row.get("lastError", String.class));
        view.setEnqueuedBy(row.get("enqueuedBy", String.class));
        view.setAccount(row.get("smtpAccount", String.class));
        view.setExpiresAt(Utc.toInstant(row.get("expiresAt", LocalDateTime.class)));
        view.setCopyOf(row.get("copyOf", Long.class));
        view.setReference(row.get("reference", String.class));
        view.setCampaign(row.get("campaign", String.class));
        view.setTags(tagList(row.get("tags", String.class)));
        return view;
    }

    /** @return the tags of a TAGS column (comma separated, or null) */
    public static List<String> tagList(String column) {
        return column == null || column.isEmpty() ? List.of() : List.of(column.split(","));
    }

    private static AttemptView attempt(MailAttempt a) {
        AttemptView view = new AttemptView(Utc.toInstant(a.getStartedAt()), Utc.toInstant(a.getFinishedAt()),
                a.getServerInstance(), a.getOutcome().name(), a.getSmtpReplyCode(), a.getSmtpReplyText(),
                a.getError());
        view.setEnhancedStatus(a.getEnhancedStatus());
        view.setAccount(a.getSmtpAccount());
        return view;
    }
}
