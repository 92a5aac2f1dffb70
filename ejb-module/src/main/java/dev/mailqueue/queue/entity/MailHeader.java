package dev.mailqueue.queue.entity;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.IdClass;
import jakarta.persistence.NamedQuery;
import jakarta.persistence.Table;

/**
 * One custom header field of a queued mail, a row of MAIL_HEADER, as the caller gave it (validated,
 * not yet encoded). Written in the enqueue transaction together with its mail; deleted with it by the
 * database (ON DELETE CASCADE).
 */
@Entity
@Table(name = "MAIL_HEADER")
@IdClass(MailPartKey.class)
@NamedQuery(name = MailHeader.OF_MAILS,
        query = "SELECT h FROM MailHeader h WHERE h.mailId IN :ids ORDER BY h.mailId, h.seqNo")
public class MailHeader {

    /** The custom header fields of the mails {@code ids}, by mail, in order. */
    public static final String OF_MAILS = "MailHeader.ofMails";

    @Id
    @Column(name = "MAIL_ID", nullable = false, updatable = false)
    private long mailId;

    @Id
    @Column(name = "SEQ_NO", nullable = false, updatable = false)
    private int seqNo;

    @Column(name = "HEADER_NAME", nullable = false, updatable = false)
    private String name;

    @Column(name = "HEADER_VALUE", nullable = false, updatable = false)
    private String value;

    /** For JPA. */
    protected MailHeader() {
    }

    /**
     * @param seqNo position in the mail, from 0
     * @param name  the field name as validated, e.g. {@code List-Unsubscribe}
     * @param value the field body, unencoded
     */
    public MailHeader(int seqNo, String name, String value) {
        this.seqNo = seqNo;
        this.name = name;
        this.value = value;
    }

    public long getMailId() {
        return mailId;
    }

    /** @param mailId the mail this field belongs to, once the mail has its id */
    public void setMailId(long mailId) {
        this.mailId = mailId;
    }

    public int getSeqNo() {
        return seqNo;
    }

    public String getName() {
        return name;
    }

    public String getValue() {
        return value;
    }
}
