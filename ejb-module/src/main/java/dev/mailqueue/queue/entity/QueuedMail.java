package dev.mailqueue.queue.entity;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/**
 * A mail that is not finished, a row of MAIL_QUEUE as queries see it: only whether it is there and whether a
 * claimer holds it, so that a search by status QUEUED or SENDING reads the narrow queue table and its
 * primary key instead of the view MAIL_STATE. Read only: the stores of {@code queue.control} write the table
 * in SQL.
 */
@Entity
@Table(name = "MAIL_QUEUE")
public class QueuedMail {

    @Id
    @Column(name = "MAIL_ID")
    private long mailId;

    @Column(insertable = false, updatable = false)
    private Long claimer;

    /** For JPA. */
    protected QueuedMail() {
    }

    /** @return the mail's id */
    public long getMailId() {
        return mailId;
    }

    /** @return the MAIL_CLAIMER id of the claimer that holds the mail; null while it waits for a claim */
    public Long getClaimer() {
        return claimer;
    }
}
