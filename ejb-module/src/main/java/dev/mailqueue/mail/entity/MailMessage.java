package dev.mailqueue.mail.entity;

import dev.mailqueue.api.MailStatus;
import jakarta.persistence.Basic;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.FetchType;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Lob;
import jakarta.persistence.NamedQuery;
import jakarta.persistence.SequenceGenerator;
import jakarta.persistence.Table;
import jakarta.persistence.Transient;

import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One queued mail: what to send, and where it is in its delivery. Times are UTC wall-clock
 * ({@link LocalDateTime} in UTC), so servers in different time zones agree on due times and leases.
 * While {@link MailStatus#SENDING} the row carries a lease: the claimer that owns it and when the
 * lease expires; after that another claimer may take the row over.
 */
@Entity
@Table(name = "MAIL_MESSAGE")
@NamedQuery(name = MailMessage.DUE_IDS, query = """
        SELECT m.id FROM MailMessage m
        WHERE m.status = dev.mailqueue.api.MailStatus.QUEUED
          AND m.notBefore <= :now AND m.attemptsRemaining > 0
        ORDER BY m.priority DESC, m.createdAt, m.id""")
@NamedQuery(name = MailMessage.LEASED, query = """
        SELECT m FROM MailMessage m
        WHERE m.id IN :ids AND m.status = dev.mailqueue.api.MailStatus.SENDING AND m.leaseOwner = :owner
        ORDER BY m.priority DESC, m.createdAt, m.id""")
@NamedQuery(name = MailMessage.BY_IDEMPOTENCY_KEY, query = """
        SELECT m FROM MailMessage m WHERE m.idempotencyKey = :key""")
@NamedQuery(name = MailMessage.COPIES, query = """
        SELECT m FROM MailMessage m WHERE m.copyOf = :first ORDER BY m.id""")
@NamedQuery(name = MailMessage.EXPIRED_LEASE_IDS, query = """
        SELECT m.id FROM MailMessage m
        WHERE m.status = dev.mailqueue.api.MailStatus.SENDING AND m.leaseExpiresAt < :now""")
public class MailMessage {

    /** Ids of due QUEUED rows, best first: priority, then age. Parameter {@code now}. */
    public static final String DUE_IDS = "MailMessage.dueIds";
    /** The rows of {@code ids} leased to {@code owner}, best first. */
    public static final String LEASED = "MailMessage.leased";
    /** The row enqueued with idempotency key {@code key}, if any. */
    public static final String BY_IDEMPOTENCY_KEY = "MailMessage.byIdempotencyKey";
    /** The copies of one per-recipient enqueue whose first copy is {@code first}, in id order. */
    public static final String COPIES = "MailMessage.copies";
    /** Ids of SENDING rows whose lease expired before {@code now}. */
    public static final String EXPIRED_LEASE_IDS = "MailMessage.expiredLeaseIds";

    @Id
    @SequenceGenerator(name = "mail_message_seq", sequenceName = "MAIL_MESSAGE_SEQ", allocationSize = 50)
    @GeneratedValue(strategy = GenerationType.SEQUENCE, generator = "mail_message_seq")
    private Long id;

    @Column(name = "MESSAGE_ID", nullable = false, updatable = false)
    private String messageId;

    @Enumerated(EnumType.STRING)
    @Column(nullable = false)
    private MailStatus status;

    @Column(nullable = false)
    private int priority;

    @Column(name = "CREATED_AT", nullable = false, updatable = false)
    private LocalDateTime createdAt;

    @Column(name = "NOT_BEFORE", nullable = false)
    private LocalDateTime notBefore;

    @Column(name = "ATTEMPTS_REMAINING", nullable = false)
    private int attemptsRemaining;

    @Column(name = "LEASE_OWNER")
    private String leaseOwner;

    @Column(name = "LEASE_EXPIRES_AT")
    private LocalDateTime leaseExpiresAt;

    @Column(name = "LAST_ATTEMPT_AT")
    private LocalDateTime lastAttemptAt;

    @Column(name = "SENT_AT")
    private LocalDateTime sentAt;

    @Column(name = "FROM_ADDRESS", nullable = false)
    private String fromAddress;

    @Column(name = "FROM_NAME")
    private String fromName;

    @Column(name = "REPLY_TO")
    private String replyTo;

    @Column(name = "TO_ADDRESSES")
    private String toAddresses;

    @Column(name = "CC_ADDRESSES")
    private String ccAddresses;

    @Column(name = "BCC_ADDRESSES")
    private String bccAddresses;

    private String subject;

    @Lob
    @Basic(fetch = FetchType.EAGER) // the dispatcher needs the bodies of every row it claims
    @Column(name = "TEXT_BODY")
    private String textBody;

    @Lob
    @Basic(fetch = FetchType.EAGER)
    @Column(name = "HTML_BODY")
    private String htmlBody;

    @Column(name = "LAST_ERROR")
    private String lastError;

    @Column(name = "EXPIRES_AT")
    private LocalDateTime expiresAt;

    @Column(name = "IDEMPOTENCY_KEY", updatable = false)
    private String idempotencyKey;

    @Column(name = "SEND_STARTED_AT", insertable = false, updatable = false) // written in SQL by the dispatcher
    private LocalDateTime sendStartedAt;

    @Column(name = "COPY_OF", updatable = false)
    private Long copyOf;

    /** Recipients an earlier attempt settled, by lower-case address; filled by the claim, not stored here. */
    @Transient
    private Map<String, RecipientStatus> settledRecipients = Map.of();

    // Rows of MAIL_ATTACHMENT and MAIL_HEADER, not mapped as relations: the enqueue writes them
    // (MailFactory, Mails) and a claim reads them for a whole chunk in one query each (MailParts).
    @Transient
    private List<MailAttachment> attachments = new ArrayList<>();

    @Transient
    private List<MailHeader> headers = new ArrayList<>();

    @Column(name = "SMTP_ACCOUNT")
    private String smtpAccount;

    @Column(name = "ENQUEUED_BY", updatable = false)
    private String enqueuedBy;

    public Long getId() {
        return id;
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

    public int getPriority() {
        return priority;
    }

    public void setPriority(int priority) {
        this.priority = priority;
    }

    public LocalDateTime getCreatedAt() {
        return createdAt;
    }

    public void setCreatedAt(LocalDateTime createdAt) {
        this.createdAt = createdAt;
    }

    public LocalDateTime getNotBefore() {
        return notBefore;
    }

    public void setNotBefore(LocalDateTime notBefore) {
        this.notBefore = notBefore;
    }

    public int getAttemptsRemaining() {
        return attemptsRemaining;
    }

    public void setAttemptsRemaining(int attemptsRemaining) {
        this.attemptsRemaining = attemptsRemaining;
    }

    public String getLeaseOwner() {
        return leaseOwner;
    }

    public LocalDateTime getLeaseExpiresAt() {
        return leaseExpiresAt;
    }

    /**
     * Puts this (new, unpersisted) row in the leased state: SENDING, owned by {@code owner} until
     * {@code expiresAt}, e.g. to set up a row a dead claimer left behind. The dispatcher does not use
     * it: claims write leases in SQL under a row lock ({@code LeaseStrategy}).
     *
     * @param owner     the claimer, e.g. {@code host/server#execution}
     * @param expiresAt UTC time after which the lease may be taken over
     */
    public void lease(String owner, LocalDateTime expiresAt) {
        this.status = MailStatus.SENDING;
        this.leaseOwner = owner;
        this.leaseExpiresAt = expiresAt;
    }

    public LocalDateTime getLastAttemptAt() {
        return lastAttemptAt;
    }

    public LocalDateTime getSentAt() {
        return sentAt;
    }

    public String getFromAddress() {
        return fromAddress;
    }

    public void setFromAddress(String fromAddress) {
        this.fromAddress = fromAddress;
    }

    public String getFromName() {
        return fromName;
    }

    public void setFromName(String fromName) {
        this.fromName = fromName;
    }

    public String getReplyTo() {
        return replyTo;
    }

    public void setReplyTo(String replyTo) {
        this.replyTo = replyTo;
    }

    /** @return a copy of the To addresses; change them with {@link #setTo(List)} */
    public List<String> getTo() {
        return AddressLists.split(toAddresses);
    }

    public void setTo(List<String> to) {
        this.toAddresses = AddressLists.join(to);
    }

    /** @return a copy of the Cc addresses; change them with {@link #setCc(List)} */
    public List<String> getCc() {
        return AddressLists.split(ccAddresses);
    }

    public void setCc(List<String> cc) {
        this.ccAddresses = AddressLists.join(cc);
    }

    /** @return a copy of the Bcc addresses; change them with {@link #setBcc(List)} */
    public List<String> getBcc() {
        return AddressLists.split(bccAddresses);
    }

    public void setBcc(List<String> bcc) {
        this.bccAddresses = AddressLists.join(bcc);
    }

    public String getSubject() {
        return subject;
    }

    public void setSubject(String subject) {
        this.subject = subject;
    }

    public String getTextBody() {
        return textBody;
    }

    public void setTextBody(String textBody) {
        this.textBody = textBody;
    }

    public String getHtmlBody() {
        return htmlBody;
    }

    public void setHtmlBody(String htmlBody) {
        this.htmlBody = htmlBody;
    }

    public String getLastError() {
        return lastError;
    }

    public void setLastError(String lastError) {
        this.lastError = lastError;
    }

    /** @return UTC time after which the mail is EXPIRED instead of sent, or null for no limit */
    public LocalDateTime getExpiresAt() {
        return expiresAt;
    }

    public void setExpiresAt(LocalDateTime expiresAt) {
        this.expiresAt = expiresAt;
    }

    /** @return the caller's idempotency key of the enqueue that made this row, or null */
    public String getIdempotencyKey() {
        return idempotencyKey;
    }

    public void setIdempotencyKey(String idempotencyKey) {
        this.idempotencyKey = idempotencyKey;
    }

    /** @return UTC time the current claimer began the SMTP transaction, or null when none is under way */
    public LocalDateTime getSendStartedAt() {
        return sendStartedAt;
    }

    /** @return for one copy per recipient, the id of the first copy of the enqueue; otherwise null */
    public Long getCopyOf() {
        return copyOf;
    }

    public void setCopyOf(Long copyOf) {
        this.copyOf = copyOf;
    }

    /**
     * @return recipients an earlier attempt settled (accepted, or refused for good), keyed by lower-case
     *         address; empty unless the claim loaded them
     */
    public Map<String, RecipientStatus> getSettledRecipients() {
        return settledRecipients;
    }

    public void setSettledRecipients(Map<String, RecipientStatus> settledRecipients) {
        this.settledRecipients = Map.copyOf(settledRecipients);
    }

    /**
     * @return the attached files in order: filled at enqueue and when the dispatcher claims the mail;
     *         empty on a row read any other way (the files stay in MAIL_ATTACHMENT)
     */
    public List<MailAttachment> getAttachments() {
        return attachments;
    }

    public void setAttachments(List<MailAttachment> attachments) {
        this.attachments = attachments;
    }

    /**
     * @return the custom header fields in order: filled at enqueue and when the dispatcher claims the
     *         mail; empty on a row read any other way
     */
    public List<MailHeader> getHeaders() {
        return headers;
    }

    public void setHeaders(List<MailHeader> headers) {
        this.headers = headers;
    }

    /** @return the SMTP account the mail was routed to on enqueue; null (rows before V5) means the default */
    public String getSmtpAccount() {
        return smtpAccount;
    }

    public void setSmtpAccount(String smtpAccount) {
        this.smtpAccount = smtpAccount;
    }

    /** @return the user that enqueued the mail (its principal name), or null for mail queued before V4 */
    public String getEnqueuedBy() {
        return enqueuedBy;
    }

    public void setEnqueuedBy(String enqueuedBy) {
        this.enqueuedBy = enqueuedBy;
    }
}
