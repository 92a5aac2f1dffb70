package dev.mailqueue.api;

import java.io.Serializable;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A queued mail as a caller may see it: its delivery state and attempt log, and the envelope, without
 * the bodies. The JSON of {@code GET /api/mails/{id}}.
 */
public class MailView implements Serializable {

    private static final long serialVersionUID = 1L;

    private long id;
    private String messageId;
    private MailStatus status;
    private int priority;
    private String from;
    private List<String> to = new ArrayList<>();
    private List<String> cc = new ArrayList<>();
    private List<String> bcc = new ArrayList<>();
    private List<AddressView> addresses = new ArrayList<>();
    private String subject;
    // Times are kept as ISO-8601 text: Liberty's ORB (Yoko) cannot marshal java.time types on Java 17
    // (java.time is not open to it), so the remote view would fail. The accessors speak Instant.
    private String createdAt;
    private String notBefore;
    private String claimedAt;
    // An int, as clients of 1.0 read it (an Integer would change the serialized form of the remote view): 0 while
    // the mail is out of the queue, which the getter answers as null from the status.
    private int attemptsRemaining;
    private String lastAttemptAt;
    private String sentAt;
    private String lastError;
    private String account;
    private String reference;
    private String campaign;
    private List<String> tags = new ArrayList<>();
    private String enqueuedBy;
    private List<AttemptView> attempts = new ArrayList<>();
    private String expiresAt;
    private Long copyOf;
    private List<RecipientView> recipients = new ArrayList<>();
    private List<AttachmentView> attachments = new ArrayList<>();
    private String contentRemovedAt; // ISO-8601; a field added in 1.x: absent from older serialized forms (null)
    private LinkedHashMap<String, String> headers = new LinkedHashMap<>(); // marshals over IIOP, keeps order

    /** For JSON-B. */
    public MailView() {
    }

    public long getId() {
        return id;
    }

    public void setId(long id) {
        this.id = id;
    }

    public String getMessageId() {
        return messageId;
    }

    public void setMessageId(String messageId) {
        this.messageId = messageId;
    }

    public MailStatus getStatus() {
        return status;
    }

    public void setStatus(MailStatus status) {
        this.status = status;
    }

    /** @return 0 (lowest) to 9 (highest) */
    public int getPriority() {
        return priority;
    }

    public void setPriority(int priority) {
        this.priority = priority;
    }

    public String getFrom() {
        return from;
    }

    public void setFrom(String from) {
        this.from = from;
    }

    public List<String> getTo() {
        return to;
    }

    public void setTo(List<String> to) {
        this.to = to;
    }

    public List<String> getCc() {
        return cc;
    }

    public void setCc(List<String> cc) {
        this.cc = cc;
    }

    public List<String> getBcc() {
        return bcc;
    }

    public void setBcc(List<String> bcc) {
        this.bcc = bcc;
    }

    /**
     * @return every address of the mail with its name and both forms of its domain: From, Reply-To, then
     *         the recipients in order; only in the full view of one mail, empty in summaries
     */
    public List<AddressView> getAddresses() {
        return addresses;
    }

    public void setAddresses(List<AddressView> addresses) {
        this.addresses = addresses;
    }

    public String getSubject() {
        return subject;
    }

    public void setSubject(String subject) {
        this.subject = subject;
    }

    public Instant getCreatedAt() {
        return createdAt == null ? null : Instant.parse(createdAt);
    }

    public void setCreatedAt(Instant createdAt) {
        this.createdAt = createdAt == null ? null : createdAt.toString();
    }

    /** @return the earliest time of the next attempt; pushed back after a failed attempt */
    public Instant getNotBefore() {
        return notBefore == null ? null : Instant.parse(notBefore);
    }

    public void setNotBefore(Instant notBefore) {
        this.notBefore = notBefore == null ? null : notBefore.toString();
    }
    /** @return when its current (or last) claim took it for sending, or null when no claimer has */
    public Instant getClaimedAt() {
        return claimedAt == null ? null : Instant.parse(claimedAt);
    }

    public void setClaimedAt(Instant claimedAt) {
        this.claimedAt = claimedAt == null ? null : claimedAt.toString();
    }


    /**
     * @return how many more attempts the queue will make (0 or more) while the mail is in the queue ({@code QUEUED},
     *         {@code SENDING}); null once its status is {@link MailStatus#isTerminal() terminal}: the count lived
     *         in the queue row, which a finished, held or suppressed mail no longer has (a requeue gives it a new
     *         count). JSON leaves the field out then.
     */
    public Integer getAttemptsRemaining() {
        return status != null && status.isTerminal() ? null : attemptsRemaining;
    }

    /** @param attemptsRemaining attempts left, 0 or more, or null when the mail is out of the queue */
    public void setAttemptsRemaining(Integer attemptsRemaining) {
        this.attemptsRemaining = attemptsRemaining == null ? 0 : attemptsRemaining;
    }

    public Instant getLastAttemptAt() {
        return lastAttemptAt == null ? null : Instant.parse(lastAttemptAt);
    }

    public void setLastAttemptAt(Instant lastAttemptAt) {
        this.lastAttemptAt = lastAttemptAt == null ? null : lastAttemptAt.toString();
    }

    public Instant getSentAt() {
        return sentAt == null ? null : Instant.parse(sentAt);
    }

    public void setSentAt(Instant sentAt) {
        this.sentAt = sentAt == null ? null : sentAt.toString();
    }

    /** @return why the last failed attempt failed, or null */
    public String getLastError() {
        return lastError;
    }

    public void setLastError(String lastError) {
        this.lastError = lastError;
    }

    /** @return the SMTP account the mail was routed to on enqueue (sending may fail over to another) */
    public String getAccount() {
        return account;
    }

    public void setAccount(String account) {
        this.account = account;
    }

    /** @return the caller's own reference given at enqueue, or null */
    public String getReference() {
        return reference;
    }

    public void setReference(String reference) {
        this.reference = reference;
    }

    /** @return the campaign given at enqueue, or null */
    public String getCampaign() {
        return campaign;
    }

    public void setCampaign(String campaign) {
        this.campaign = campaign;
    }

    /** @return the tags given at enqueue, without repeats; empty for none */
    public List<String> getTags() {
        return tags;
    }

    public void setTags(List<String> tags) {
        this.tags = tags == null ? new ArrayList<>() : new ArrayList<>(tags);
    }

    /** @return the user that enqueued the mail, or null for mail queued before it was recorded */
    public String getEnqueuedBy() {
        return enqueuedBy;
    }

    public void setEnqueuedBy(String enqueuedBy) {
        this.enqueuedBy = enqueuedBy;
    }

    /** @return the attempt log, oldest first; empty in search results */
    public List<AttemptView> getAttempts() {
        return attempts;
    }

    public void setAttempts(List<AttemptView> attempts) {
        this.attempts = attempts;
    }

    /** @return when the mail expires unless sent before, or null for never */
    public Instant getExpiresAt() {
        return expiresAt == null ? null : Instant.parse(expiresAt);
    }

    public void setExpiresAt(Instant expiresAt) {
        this.expiresAt = expiresAt == null ? null : expiresAt.toString();
    }

    /** @return for a per-recipient copy, the id of the enqueue's first copy; otherwise null */
    public Long getCopyOf() {
        return copyOf;
    }

    public void setCopyOf(Long copyOf) {
        this.copyOf = copyOf;
    }

    /**
     * @return per-recipient outcomes, once an attempt treated the recipients differently (some accepted,
     *         some refused); empty when every recipient shares the mail's status
     */
    public List<RecipientView> getRecipients() {
        return recipients;
    }

    public void setRecipients(List<RecipientView> recipients) {
        this.recipients = recipients == null ? new ArrayList<>() : new ArrayList<>(recipients);
    }

    /**
     * @return when the retention job removed the mail's content, its bodies, attachments and raw bytes
     *         ({@code mailqueue.retention.content-days} after it finished), or null while the mail has its content;
     *         once removed, the mail lists no attachments and cannot be requeued
     */
    public Instant getContentRemovedAt() {
        return contentRemovedAt == null ? null : Instant.parse(contentRemovedAt);
    }

    public void setContentRemovedAt(Instant contentRemovedAt) {
        this.contentRemovedAt = contentRemovedAt == null ? null : contentRemovedAt.toString();
    }

    /** @return the attachments (names, types, sizes), in order; none once its content was removed */
    public List<AttachmentView> getAttachments() {
        return attachments;
    }

    public void setAttachments(List<AttachmentView> attachments) {
        this.attachments = attachments;
    }

    /** @return the custom header fields as given, in order */
    public Map<String, String> getHeaders() {
        return headers;
    }

    public void setHeaders(Map<String, String> headers) {
        this.headers = headers == null ? null : new LinkedHashMap<>(headers);
    }
}
