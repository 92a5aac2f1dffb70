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
import jakarta.persistence.SequenceGenerator;
import jakarta.persistence.Table;

import java.time.LocalDateTime;
import java.util.List;

/**
 * One queued mail, as JPA reads it: what to send, and where it is in its delivery. Times are UTC
 * wall-clock ({@link LocalDateTime} in UTC), so servers in different time zones agree on due times and
 * leases. While {@link MailStatus#SENDING} the row carries a lease: the claimer that owns it and when
 * the lease expires; after that another claimer may take the row over. Every change of a row is made by
 * the stores of {@code queue.control} in SQL (it binds times as UTC whatever the JVM's zone); JPA only reads, for views,
 * search and statistics.
 */
@Entity
@Table(name = "MAIL_MESSAGE")
public class MailMessage {

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

    @Column(name = "ADDRESS_NAMES", insertable = false, updatable = false) // written by EnqueueStore only
    private String addressNames;

    @Column(name = "UNSUBSCRIBE_LIST", insertable = false, updatable = false) // written by EnqueueStore only
    private String unsubscribeList;

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

    @Column(name = "SMTP_ACCOUNT")
    private String smtpAccount;

    @Column(name = "ENQUEUED_BY", updatable = false)
    private String enqueuedBy;

    @Column(name = "CLAIMED_AT")
    private LocalDateTime claimedAt;

    @Column(name = "REFERENCE", updatable = false)
    private String reference;

    @Column(name = "CAMPAIGN", updatable = false)
    private String campaign;

    @Column(name = "TAGS", updatable = false) // comma separated; a tag holds no comma
    private String tags;

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

    /** @return the names of Reply-To and the recipients as stored (see {@code queue.control.AddressNames}), or null */
    public String getAddressNames() {
        return addressNames;
    }

    /** @return the list a one-click unsubscribe removes the recipients from, or null */
    public String getUnsubscribeList() {
        return unsubscribeList;
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

    /** @return UTC time its current (or last) claim leased it, or null when it was never claimed since V6 */
    public LocalDateTime getClaimedAt() {
        return claimedAt;
    }

    /** @return the caller's own reference, or null */
    public String getReference() {
        return reference;
    }

    /** @return the campaign, or null */
    public String getCampaign() {
        return campaign;
    }

    /** @return the tags, comma separated, or null for none */
    public String getTags() {
        return tags;
    }
}
