package dev.mailqueue.api;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/**
 * What {@link MailQueue#enqueue(MailRequest)} answers: the queue's id of the mail and the RFC 5322
 * Message-ID it will carry on every attempt, so a receiver can de-duplicate a resend.
 */
public class EnqueueReceipt implements Serializable {

    private static final long serialVersionUID = 1L;

    private long id;
    private String messageId;
    private MailStatus status;
    private boolean duplicate;
    private List<EnqueueReceipt> copies = new ArrayList<>();
    private List<String> suppressed = new ArrayList<>();

    /** For JSON-B. */
    public EnqueueReceipt() {
    }

    /**
     * @param id        the queue's id of the mail, positive
     * @param messageId the Message-ID header value, with angle brackets
     * @param status    the status right after enqueue: {@link MailStatus#QUEUED}, or
     *                  {@link MailStatus#SUPPRESSED} when every recipient was on the suppression list
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

    /**
     * @return true when an earlier enqueue with the same idempotency key had queued this mail, and this
     *         enqueue queued nothing; its status is then the mail's status now
     */
    public boolean isDuplicate() {
        return duplicate;
    }

    public void setDuplicate(boolean duplicate) {
        this.duplicate = duplicate;
    }

    /**
     * @return for an enqueue with {@link MailRequest#isPerRecipient()}, one receipt per recipient's copy,
     *         in the order of to, cc, bcc (the first is this receipt's mail); empty otherwise
     */
    public List<EnqueueReceipt> getCopies() {
        return copies;
    }

    public void setCopies(List<EnqueueReceipt> copies) {
        this.copies = copies == null ? new ArrayList<>() : new ArrayList<>(copies);
    }

    /**
     * @return the recipients the queue will not send to because they were on the suppression list (a hard
     *         bounce, a complaint, an unsubscribe or an operator put them there), as the request gave
     *         them; empty when none was. Not an error: the others are sent to as usual.
     */
    public List<String> getSuppressed() {
        return suppressed;
    }

    public void setSuppressed(List<String> suppressed) {
        this.suppressed = suppressed == null ? new ArrayList<>() : new ArrayList<>(suppressed);
    }
}
