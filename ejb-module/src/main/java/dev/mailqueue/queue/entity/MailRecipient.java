package dev.mailqueue.queue.entity;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.IdClass;
import jakarta.persistence.NamedQuery;
import jakarta.persistence.Table;

import java.io.Serializable;
import java.time.LocalDateTime;
import java.util.Objects;

/**
 * One result of one recipient of a mail (MAIL_RECIPIENT), written with the log row {@link #getAttemptId()} that
 * brought it, insert only: kept once a recipient's fate differs from the mail's (some accepted, some refused,
 * suppressed, requeued). A recipient's state is its row of the latest log row; {@link #BY_MAILS} reads only
 * those. Written by the stores in SQL; read here. Times UTC.
 */
@Entity
@Table(name = "MAIL_RECIPIENT")
@IdClass(MailRecipient.Key.class)
@NamedQuery(name = MailRecipient.BY_MAILS,
        query = "SELECT r FROM MailRecipient r WHERE r.mailId IN :ids AND r.attemptId = (SELECT MAX(x.attemptId)"
                + " FROM MailRecipient x WHERE x.mailId = r.mailId AND LOWER(x.address) = LOWER(r.address))"
                + " ORDER BY r.mailId, r.address")
public class MailRecipient {

    /**
     * Where each recipient of the mails {@code ids} stands: of its rows (the address compared without case, as
     * the stores compare it), the one of the latest log row.
     */
    public static final String BY_MAILS = "MailRecipient.byMails";

    @Id
    @Column(name = "MAIL_ID")
    private long mailId;

    @Id
    private String address;

    @Id
    @Column(name = "ATTEMPT_ID")
    private long attemptId;

    @Enumerated(EnumType.STRING)
    @Column(nullable = false)
    private RecipientStatus status;

    @Column(name = "REPLY_CODE")
    private Integer replyCode;

    @Column(name = "ENHANCED_STATUS")
    private String enhancedStatus;

    @Column(name = "REPLY_TEXT")
    private String replyText;

    @Column(name = "UPDATED_AT", nullable = false)
    private LocalDateTime updatedAt;

    public long getMailId() {
        return mailId;
    }

    /** @return the address as queued (or in lower case, as a requeue writes it) */
    public String getAddress() {
        return address;
    }

    /** @return the log row (MAIL_ATTEMPT.ID) this result was written with; 0 for results before V13 */
    public long getAttemptId() {
        return attemptId;
    }

    public RecipientStatus getStatus() {
        return status;
    }

    /** @return the SMTP reply code for this recipient, or null when none was specific to it */
    public Integer getReplyCode() {
        return replyCode;
    }

    /** @return the RFC 3463 enhanced status code, e.g. {@code 5.1.1}, or null */
    public String getEnhancedStatus() {
        return enhancedStatus;
    }

    public String getReplyText() {
        return replyText;
    }

    /** @return UTC, when this status was recorded */
    public LocalDateTime getUpdatedAt() {
        return updatedAt;
    }

    /** The composite key: mail, address and the log row of the result. */
    public static class Key implements Serializable {
        private static final long serialVersionUID = 2L;
        private long mailId;
        private String address;
        private long attemptId;

        public Key() {
        }

        public Key(long mailId, String address, long attemptId) {
            this.mailId = mailId;
            this.address = address;
            this.attemptId = attemptId;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.mailId == mailId && Objects.equals(k.address, address)
                    && k.attemptId == attemptId;
        }

        @Override
        public int hashCode() {
            return Objects.hash(mailId, address, attemptId);
        }
    }
}
