package dev.mailqueue.api;

import java.io.Serializable;

/**
 * What {@link MailQueue#enqueue(MailRequest)} answers: the queue's id of the mail and the RFC 5322
 * Message-ID it will carry on every attempt, so a receiver can de-duplicate a resend.
 */
public class EnqueueReceipt implements Serializable {

    private static final long serialVersionUID = 1L;

    private long id;
    private String messageId;
    private MailStatus status;

    /** For JSON-B. */
    public EnqueueReceipt() {
    }

    /**
     * @param id        the queue's id of the mail, positive
     * @param messageId the Message-ID header value, with angle brackets
     * @param status    the status right after enqueue ({@link MailStatus#QUEUED})
     */
    public EnqueueReceipt(long id, String messageId, MailStatus status) {
        this.id = id;
        this.messageId = messageId;
        this.status = status;
    }

    /** @return the queue's id of the mail, positive */
    public long getId() {
        return id;
    }

    public void setId(long id) {
        this.id = id;
    }

    /** @return the Message-ID header value, with angle brackets, e.g. {@code <uuid@example.com>} */
    public String getMessageId() {
        return messageId;
    }

    public void setMessageId(String messageId) {
        this.messageId = messageId;
    }

    /** @return the status right after enqueue */
    public MailStatus getStatus() {
        return status;
    }

    public void setStatus(MailStatus status) {
        this.status = status;
    }
}
