package dev.mailqueue.queue.entity;

import dev.mailqueue.api.MailStatus;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import java.time.LocalDateTime;

/**
 * Where one mail stands, a row of the view MAIL_STATE (V13): QUEUED or SENDING while the mail has a row in
 * MAIL_QUEUE (SENDING while a claimer holds it), with its due time and attempts left; otherwise the status the
 * latest row of its log (MAIL_ATTEMPT.MAIL_STATUS) recorded, and when. One row per mail, under the mail's id, so
 * that a query joins it to {@link MailMessage} by id. Read only: the view cannot be written, and the stores of
 * {@code queue.control} change the tables under it in SQL. Times UTC.
 */
@Entity
@Table(name = "MAIL_STATE")
public class MailState {

    @Id
    @Column(name = "MAIL_ID")
    private long mailId;

    @Enumerated(EnumType.STRING)
    @Column(insertable = false, updatable = false)
    private MailStatus status;

    @Column(name = "DUE_AT", insertable = false, updatable = false)
    private LocalDateTime dueAt;

    @Column(name = "ATTEMPTS_LEFT", insertable = false, updatable = false)
    private Integer attemptsLeft;

    @Column(name = "EXPIRES_AT", insertable = false, updatable = false)
    private LocalDateTime expiresAt;

    @Column(name = "CLAIMED_AT", insertable = false, updatable = false)
    private LocalDateTime claimedAt;

    @Column(name = "FINISHED_AT", insertable = false, updatable = false)
    private LocalDateTime finishedAt;

    @Column(name = "SENT_AT", insertable = false, updatable = false)
    private LocalDateTime sentAt;

    @Column(name = "LAST_ATTEMPT_AT", insertable = false, updatable = false)
    private LocalDateTime lastAttemptAt;

    @Column(name = "LAST_ERROR", insertable = false, updatable = false)
    private String lastError;

    /** For JPA. */
    protected MailState() {
    }

    public long getMailId() {
        return mailId;
    }

    public MailStatus getStatus() {
        return status;
    }

    /** @return when the next attempt is due, while the mail is in the queue; else null */
    public LocalDateTime getDueAt() {
        return dueAt;
    }

    /** @return attempts left, while the mail is in the queue; else null */
    public Integer getAttemptsLeft() {
        return attemptsLeft;
    }

    /** @return after when the mail is not sent: a requeue's new expiry, else the one of its enqueue; or null */
    public LocalDateTime getExpiresAt() {
        return expiresAt;
    }

    /** @return when the claimer that holds it started, while one does (SENDING); else null */
    public LocalDateTime getClaimedAt() {
        return claimedAt;
    }

    /** @return when the status of a mail out of the queue was recorded; null while it is in the queue */
    public LocalDateTime getFinishedAt() {
        return finishedAt;
    }

    /** @return when it was sent, for a SENT mail; else null */
    public LocalDateTime getSentAt() {
        return sentAt;
    }

    /** @return when its latest SMTP attempt began, or null when none was made */
    public LocalDateTime getLastAttemptAt() {
        return lastAttemptAt;
    }

    /** @return why it waits (the queue row's note), or the error of its latest log row that is no report; or null */
    public String getLastError() {
        return lastError;
    }
}
