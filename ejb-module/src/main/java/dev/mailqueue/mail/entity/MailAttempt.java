package dev.mailqueue.mail.entity;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.NamedQuery;
import jakarta.persistence.SequenceGenerator;
import jakarta.persistence.Table;

import java.time.LocalDateTime;

/**
 * One row of the attempt log: one delivery attempt of one mail, written whether it succeeded or not,
 * and also when the claimer had lost its lease meanwhile (then {@link #getError()} says so). Times in
 * UTC.
 */
@Entity
@Table(name = "MAIL_ATTEMPT")
@NamedQuery(name = MailAttempt.BY_MAIL,
        query = "SELECT a FROM MailAttempt a WHERE a.mailId = :mailId ORDER BY a.startedAt, a.id")
public class MailAttempt {

    /** The attempts of mail {@code mailId}, oldest first. */
    public static final String BY_MAIL = "MailAttempt.byMail";

    @Id
    @SequenceGenerator(name = "mail_attempt_seq", sequenceName = "MAIL_ATTEMPT_SEQ", allocationSize = 50)
    @GeneratedValue(strategy = GenerationType.SEQUENCE, generator = "mail_attempt_seq")
    private Long id;

    @Column(name = "MAIL_ID", nullable = false, updatable = false)
    private long mailId;

    @Column(name = "STARTED_AT", nullable = false)
    private LocalDateTime startedAt;

    @Column(name = "FINISHED_AT", nullable = false)
    private LocalDateTime finishedAt;

    @Column(name = "SERVER_INSTANCE", nullable = false)
    private String serverInstance;

    @Column(name = "LEASE_OWNER", nullable = false)
    private String leaseOwner;

    @Enumerated(EnumType.STRING)
    @Column(nullable = false)
    private AttemptOutcome outcome;

    @Column(name = "SMTP_REPLY_CODE")
    private Integer smtpReplyCode;

    @Column(name = "SMTP_REPLY_TEXT")
    private String smtpReplyText;

    private String error;

    @Column(name = "ENHANCED_STATUS")
    private String enhancedStatus;

    @Column(name = "SMTP_ACCOUNT")
    private String smtpAccount;

    /** For JPA. */
    protected MailAttempt() {
    }

    /**
     * @param mailId         the mail attempted
     * @param startedAt      UTC, when the attempt began
     * @param finishedAt     UTC, when it ended
     * @param serverInstance the server that made it
     * @param leaseOwner     the claimer that made it
     * @param outcome        how it ended
     * @param smtpReplyCode  the SMTP reply code, or null when none came
     * @param smtpReplyText  the reply text, at most 1,000 characters kept, or null
     * @param error          why it failed, at most 2,000 characters kept, or null
     * @param smtpAccount    the SMTP account that sent it or made the last try (after failing over), or null
     */
    public MailAttempt(long mailId, LocalDateTime startedAt, LocalDateTime finishedAt, String serverInstance,
                       String leaseOwner, AttemptOutcome outcome, Integer smtpReplyCode, String smtpReplyText,
                       String error, String smtpAccount) {
        this.mailId = mailId;
        this.startedAt = startedAt;
        this.finishedAt = finishedAt;
        this.serverInstance = serverInstance;
        this.leaseOwner = leaseOwner;
        this.outcome = outcome;
        this.smtpReplyCode = smtpReplyCode;
        this.smtpReplyText = Texts.clip(smtpReplyText, 1000);
        this.error = Texts.clip(error, 2000);
        this.smtpAccount = smtpAccount;
    }

    /**
     * @param enhancedStatus the RFC 3463 enhanced status code of the reply, e.g. {@code 5.1.1}, or null
     * @return this attempt
     */
    public MailAttempt withEnhancedStatus(String enhancedStatus) {
        this.enhancedStatus = enhancedStatus;
        return this;
    }

    /** @return the RFC 3463 enhanced status code of the reply, e.g. {@code 5.1.1}, or null when none came */
    public String getEnhancedStatus() {
        return enhancedStatus;
    }

    public Long getId() {
        return id;
    }

    public long getMailId() {
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
}
