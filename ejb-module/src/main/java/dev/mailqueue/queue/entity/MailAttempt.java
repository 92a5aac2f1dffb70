package dev.mailqueue.queue.entity;

import dev.mailqueue.api.MailStatus;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.NamedQuery;
import jakarta.persistence.Table;

import java.time.LocalDateTime;

/**
 * One row of a mail's log (MAIL_ATTEMPT), insert only: a delivery attempt and how it ended, a report about the
 * mail, a change of its status, or an unsubscribe (which names no mail). Written by the stores of
 * {@code queue.control} in SQL, with ids the database hands out in insert order; JPA only reads it. What
 * callers see as the attempt log are the rows of {@link AttemptOutcome#SHOWN} ({@link #BY_MAIL}). Times in UTC.
 */
@Entity
@Table(name = "MAIL_ATTEMPT")
@NamedQuery(name = MailAttempt.BY_MAIL,
        query = "SELECT a FROM MailAttempt a WHERE a.mailId = :mailId AND a.outcome IN ("
                + "dev.mailqueue.queue.entity.AttemptOutcome.SENT, dev.mailqueue.queue.entity.AttemptOutcome.FAILED,"
                + " dev.mailqueue.queue.entity.AttemptOutcome.IN_DOUBT, dev.mailqueue.queue.entity.AttemptOutcome.BOUNCED,"
                + " dev.mailqueue.queue.entity.AttemptOutcome.DELAYED, dev.mailqueue.queue.entity.AttemptOutcome.COMPLAINED)"
                + " ORDER BY a.startedAt, a.id")
public class MailAttempt {

    /** The attempt log of mail {@code mailId}: its rows of {@link AttemptOutcome#SHOWN}, oldest first. */
    public static final String BY_MAIL = "MailAttempt.byMail";

    @Id // the database's, in insert order: no generator, JPA never inserts
    private Long id;

    @Column(name = "MAIL_ID", insertable = false, updatable = false)
    private Long mailId;

    @Column(name = "STARTED_AT", insertable = false, updatable = false)
    private LocalDateTime startedAt;

    @Column(name = "FINISHED_AT", insertable = false, updatable = false)
    private LocalDateTime finishedAt;

    @Column(name = "SERVER_INSTANCE", insertable = false, updatable = false)
    private String serverInstance;

    @Column(name = "LEASE_OWNER", insertable = false, updatable = false)
    private String leaseOwner;

    @Enumerated(EnumType.STRING)
    @Column(insertable = false, updatable = false)
    private AttemptOutcome outcome;

    @Column(name = "SMTP_REPLY_CODE", insertable = false, updatable = false)
    private Integer smtpReplyCode;

    @Column(name = "SMTP_REPLY_TEXT", insertable = false, updatable = false)
    private String smtpReplyText;

    @Column(insertable = false, updatable = false)
    private String error;

    @Column(name = "ENHANCED_STATUS", insertable = false, updatable = false)
    private String enhancedStatus;

    @Column(name = "SMTP_ACCOUNT", insertable = false, updatable = false)
    private String smtpAccount;

    @Enumerated(EnumType.STRING)
    @Column(name = "MAIL_STATUS", insertable = false, updatable = false)
    private MailStatus mailStatus;

    @Column(name = "EVENT_TYPE", insertable = false, updatable = false)
    private String eventType;

    @Column(insertable = false, updatable = false)
    private String recipient;

    @Column(name = "NEXT_ATTEMPT_AT", insertable = false, updatable = false)
    private LocalDateTime nextAttemptAt;

    /** For JPA. */
    protected MailAttempt() {
    }

    /** @return the RFC 3463 enhanced status code of the reply, e.g. {@code 5.1.1}, or null when none came */
    public String getEnhancedStatus() {
        return enhancedStatus;
    }

    public Long getId() {
        return id;
    }

    /** @return the mail, or null for a row that names none (an unsubscribe) */
    public Long getMailId() {
        return mailId;
    }

    public LocalDateTime getStartedAt() {
        return startedAt;
    }

    public LocalDateTime getFinishedAt() {
        return finishedAt;
    }

    public String getServerInstance() {
        return serverInstance;
    }

    public String getLeaseOwner() {
        return leaseOwner;
    }

    public AttemptOutcome getOutcome() {
        return outcome;
    }

    public Integer getSmtpReplyCode() {
        return smtpReplyCode;
    }

    public String getSmtpReplyText() {
        return smtpReplyText;
    }

    public String getError() {
        return error;
    }

    /** @return the SMTP account that sent the mail or made the last try, or null (before accounts existed) */
    public String getSmtpAccount() {
        return smtpAccount;
    }

    /** @return the mail's status after this row, or null when the row did not change it */
    public MailStatus getMailStatus() {
        return mailStatus;
    }

    /** @return the delivery event this row publishes ({@code dev.mailqueue.api.EventType}'s name), or null */
    public String getEventType() {
        return eventType;
    }

    /** @return the one recipient the row concerns, or null for the mail as a whole */
    public String getRecipient() {
        return recipient;
    }

    /** @return for a deferral, when the next attempt is due; else null */
    public LocalDateTime getNextAttemptAt() {
        return nextAttemptAt;
    }
}
