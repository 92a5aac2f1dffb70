package dev.mailqueue.queue.entity;

import java.io.Serializable;
import java.util.Objects;

/**
 * The primary key of a part stored beside a mail ({@link MailAttachment}, {@link MailHeader}): the
 * mail's id and the part's position in it, from 0.
 */
public class MailPartKey implements Serializable {

    private static final long serialVersionUID = 1L;

    private long mailId;
    private int seqNo;

    /** For JPA. */
    public MailPartKey() {
    }

    /**
     * @param mailId the mail
     * @param seqNo  the position, 0 or more
     */
    public MailPartKey(long mailId, int seqNo) {
        this.mailId = mailId;
        this.seqNo = seqNo;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MailPartKey other && other.mailId == mailId && other.seqNo == seqNo;
    }

    @Override
    public int hashCode() {
        return Objects.hash(mailId, seqNo);
    }
}
