package dev.mailqueue.queue.entity;

import jakarta.persistence.Basic;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.FetchType;
import jakarta.persistence.Id;
import jakarta.persistence.IdClass;
import jakarta.persistence.Lob;
import jakarta.persistence.NamedQuery;
import jakarta.persistence.Table;

/**
 * One file attached to a queued mail, a row of MAIL_ATTACHMENT. Written in the enqueue transaction
 * together with its mail, so a mail is stored whole or not at all; deleted with it by the database
 * (ON DELETE CASCADE).
 */
@Entity
@Table(name = "MAIL_ATTACHMENT")
@IdClass(MailPartKey.class)
@NamedQuery(name = MailAttachment.OF_MAILS,
        query = "SELECT a FROM MailAttachment a WHERE a.mailId IN :ids ORDER BY a.mailId, a.seqNo")
public class MailAttachment {

    /** The attachments of the mails {@code ids}, by mail, in order. */
    public static final String OF_MAILS = "MailAttachment.ofMails";

    @Id
    @Column(name = "MAIL_ID", nullable = false, updatable = false)
    private long mailId;

    @Id
    @Column(name = "SEQ_NO", nullable = false, updatable = false)
    private int seqNo;

    @Column(name = "FILE_NAME", nullable = false, updatable = false)
    private String filename;

    @Column(name = "CONTENT_TYPE", nullable = false, updatable = false)
    private String contentType;

    @Column(name = "SIZE_BYTES", nullable = false, updatable = false)
    private long sizeBytes;

    @Lob
    @Basic(fetch = FetchType.EAGER) // read only for mails being sent, which need it
    @Column(name = "CONTENT", nullable = false, updatable = false)
    private byte[] content;

    /** For JPA. */
    protected MailAttachment() {
    }

    /**
     * @param seqNo       position in the mail, from 0
     * @param filename    the file name as validated
     * @param contentType the MIME type, e.g. {@code application/pdf}
     * @param content     the bytes
     */
    public MailAttachment(int seqNo, String filename, String contentType, byte[] content) {
        this.seqNo = seqNo;
        this.filename = filename;
        this.contentType = contentType;
        this.content = content;
        this.sizeBytes = content.length;
    }

    public long getMailId() {
        return mailId;
    }

    /** @param mailId the mail this file belongs to, once the mail has its id */
    public void setMailId(long mailId) {
        this.mailId = mailId;
    }

    public int getSeqNo() {
        return seqNo;
    }

    public String getFilename() {
        return filename;
    }

    public String getContentType() {
        return contentType;
    }

    /** @return the content's size in bytes */
    public long getSizeBytes() {
        return sizeBytes;
    }

    /** @return the bytes; the array itself, not a copy */
    public byte[] getContent() {
        return content;
    }
}
