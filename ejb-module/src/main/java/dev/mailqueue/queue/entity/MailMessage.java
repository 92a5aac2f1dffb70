package dev.mailqueue.queue.entity;

import jakarta.persistence.Basic;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
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
 * One queued mail's content, as JPA reads it: what to send, written once at enqueue and never rewritten (the
 * lean store, V13). Where the mail stands (its status, due time, attempts left, claimer, last error) is not
 * here: it is {@link MailState}, the view that reads the queue row of an unfinished mail and the log of a
 * finished one. Times are UTC wall-clock ({@link LocalDateTime} in UTC). Rows are written by the stores of
 * {@code queue.control} in SQL; JPA only reads, for views, search and statistics. {@link #getExpiresAt()} is
 * the expiry asked for at enqueue; an operator's requeue may set another, which {@link MailState} tells.
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

    @Column(nullable = false)
    private int priority;

    @Column(name = "CREATED_AT", nullable = false, updatable = false)
    private LocalDateTime createdAt;

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

    @Column(name = "EXPIRES_AT")
    private LocalDateTime expiresAt;

    @Column(name = "IDEMPOTENCY_KEY", updatable = false)
    private String idempotencyKey;

    @Column(name = "COPY_OF", updatable = false)
    private Long copyOf;

    @Column(name = "SMTP_ACCOUNT")
    private String smtpAccount;

    @Column(name = "ENQUEUED_BY", updatable = false)
    private String enqueuedBy;

    @Column(name = "REFERENCE", updatable = false)
    private String reference;

    @Column(name = "CAMPAIGN", updatable = false)
    private String campaign;

    @Column(name = "TAGS", updatable = false) // comma separated; a tag holds no comma
    private String tags;

    // Set by the retention job's content step in SQL (ContentStore), never through this entity (V20).
    @Column(name = "CONTENT_REMOVED_AT", insertable = false, updatable = false)
    private LocalDateTime contentRemovedAt;

    public Long getId() {
        return id;
    }

    public String getMessageId() {
        return messageId;
    }

    public void setMessageId(String messageId) {
        this.messageId = messageId;
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

    /** @return UTC time after which the mail is EXPIRED instead of sent, as enqueued, or null for no limit */
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

    /**
     * @return when the retention job removed this finished mail's bodies, attachments and raw bytes (UTC; V20,
     *         {@code mailqueue.retention.content-days}), or null while it has them
     */
    public LocalDateTime getContentRemovedAt() {
        return contentRemovedAt;
    }
}
