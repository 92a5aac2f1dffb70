package dev.mailqueue.api;

import java.io.Serializable;
import java.time.Instant;

/**
 * One recipient of a mail and where it stands, for the operator's view of one mail: every To, Cc and Bcc
 * recipient in that order. Its {@code status} is its own when an SMTP answer, a bounce, a complaint or
 * the suppression list concerned it alone ({@code perRecipient} true: {@code SENT}, {@code REFUSED},
 * {@code DEFERRED}, {@code BOUNCED}, {@code COMPLAINED}, {@code SUPPRESSED}), else the mail's:
 * {@code PENDING} while the mail is QUEUED, SENDING or HELD, otherwise the mail's status ({@code SENT},
 * {@code FAILED}, {@code CANCELLED}, {@code EXPIRED}, {@code SUPPRESSED}). A recipient that shares a {@code SENT} or
 * {@code FAILED} status shows the reply of the attempt that settled the mail (the SMTP transaction that answered
 * for every recipient at once, e.g. {@code 250} to the end of DATA).
 */
public class RecipientOutcome implements Serializable {

    private static final long serialVersionUID = 1L;

    private String field;
    private String address;
    private String name;
    private String status;
    private boolean perRecipient;
    private Integer replyCode;
    private String enhancedStatus;
    private String replyText;
    private String updatedAt; // ISO-8601, as in MailView

    /** For JSON-B. */
    public RecipientOutcome() {
    }

    /** @return {@code to}, {@code cc} or {@code bcc} */
    public String getField() {
        return field;
    }

    public void setField(String field) {
        this.field = field;
    }

    /** @return the address as stored (domain in A-labels) */
    public String getAddress() {
        return address;
    }

    public void setAddress(String address) {
        this.address = address;
    }

    /** @return the display name, or null */
    public String getName() {
        return name;
    }

    public void setName(String name) {
        this.name = name;
    }

    /** @return see the class comment */
    public String getStatus() {
        return status;
    }

    public void setStatus(String status) {
        this.status = status;
    }

    /** @return true when the status is this recipient's own, false when it is the mail's */
    public boolean isPerRecipient() {
        return perRecipient;
    }

    public void setPerRecipient(boolean perRecipient) {
        this.perRecipient = perRecipient;
    }

    /** @return the SMTP reply code for this recipient (its own, or the settling attempt's), or null */
    public Integer getReplyCode() {
        return replyCode;
    }

    public void setReplyCode(Integer replyCode) {
        this.replyCode = replyCode;
    }

    /** @return the RFC 3463 enhanced status code, or null */
    public String getEnhancedStatus() {
        return enhancedStatus;
    }

    public void setEnhancedStatus(String enhancedStatus) {
        this.enhancedStatus = enhancedStatus;
    }

    /** @return the reply text or the reason, or null */
    public String getReplyText() {
        return replyText;
    }

    public void setReplyText(String replyText) {
        this.replyText = replyText;
    }

    /** @return when its own status was last set, or when the attempt that settled the mail ended; null when neither */
    public Instant getUpdatedAt() {
        return updatedAt == null ? null : Instant.parse(updatedAt);
    }

    public void setUpdatedAt(Instant updatedAt) {
        this.updatedAt = updatedAt == null ? null : updatedAt.toString();
    }
}
