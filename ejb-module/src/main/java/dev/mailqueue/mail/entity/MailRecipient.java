package dev.mailqueue.mail.entity;

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
 * Where one recipient of a mail stands, kept once an attempt treated the mail's recipients
 * differently (some accepted, some refused). Written by the dispatcher in SQL; read here. Times UTC.
 */
@Entity
@Table(name = "MAIL_RECIPIENT")
@IdClass(MailRecipient.Key.class)
@NamedQuery(name = MailRecipient.BY_MAILS,
        query = "SELECT r FROM MailRecipient r WHERE r.mailId IN :ids ORDER BY r.mailId, r.address")
public class MailRecipient {

    /** The recipient rows of the mails {@code ids}. */
    public static final String BY_MAILS = "MailRecipient.byMails";

    @Id
    @Column(name = "MAIL_ID")
    private long mailId;

    @Id
    private String address;

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

    /** @return the address as queued */
    public String getAddress() {
        return address;
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

    /** The composite key: mail and address. */
    public static class Key implements Serializable {
        private static final long serialVersionUID = 1L;
        private long mailId;
        private String address;

        public Key() {
        }

        public Key(long mailId, String address) {
            this.mailId = mailId;
            this.address = address;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.mailId == mailId && Objects.equals(k.address, address);
        }

        @Override
        public int hashCode() {
            return Objects.hash(mailId, address);
        }
    }
}
