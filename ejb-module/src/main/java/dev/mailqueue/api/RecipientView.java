package dev.mailqueue.api;

import java.io.Serializable;

/**
 * Where one recipient of a mail stands, once an attempt treated the mail's recipients differently.
 * Status {@code SENT} (accepted; never sent to again), {@code REFUSED} (refused for good, e.g. 550
 * 5.1.1; never tried again) or {@code DEFERRED} (refused for now or not reached; tried again with the
 * mail).
 */
public class RecipientView implements Serializable {

    private static final long serialVersionUID = 1L;

    private String address;
    private String status;
    private Integer replyCode;
    private String enhancedStatus;
    private String replyText;

    /** For JSON-B. */
    public RecipientView() {
    }

    /**
     * @param address        the recipient
     * @param status         SENT, REFUSED or DEFERRED
     * @param replyCode      the SMTP reply code for it, or null
     * @param enhancedStatus the RFC 3463 enhanced status code, or null
     * @param replyText      the reply text, or null
     */
    public RecipientView(String address, String status, Integer replyCode, String enhancedStatus, String replyText) {
        this.address = address;
        this.status = status;
        this.replyCode = replyCode;
        this.enhancedStatus = enhancedStatus;
        this.replyText = replyText;
    }

    public String getAddress() {
        return address;
    }

    public void setAddress(String address) {
        this.address = address;
    }

    /** @return SENT, REFUSED or DEFERRED */
    public String getStatus() {
        return status;
    }

    public void setStatus(String status) {
        this.status = status;
    }

    /** @return the three-digit SMTP reply code for this recipient, or null when none was specific to it */
    public Integer getReplyCode() {
        return replyCode;
    }

    public void setReplyCode(Integer replyCode) {
        this.replyCode = replyCode;
    }

    /** @return the RFC 3463 enhanced status code, e.g. {@code 5.1.1}, or null */
    public String getEnhancedStatus() {
        return enhancedStatus;
    }

    public void setEnhancedStatus(String enhancedStatus) {
        this.enhancedStatus = enhancedStatus;
    }

    public String getReplyText() {
        return replyText;
    }

    public void setReplyText(String replyText) {
        this.replyText = replyText;
    }
}
