package dev.mailqueue.api;

import java.io.Serializable;

/**
 * An address on the suppression list: the queue does not send to it (for all mail, or for one list).
 * Reasons: {@code HARD_BOUNCE} (a Delivery Status Notification said the address does not work, a 5.x.x
 * status), {@code COMPLAINT} (its owner reported a mail as spam), {@code UNSUBSCRIBE}, {@code MANUAL}
 * (an operator).
 */
public class SuppressionView implements Serializable {

    private static final long serialVersionUID = 1L;

    private String address;
    private String list;
    private String reason;
    private Long mailId;
    private String detail;
    private String createdAt;

    /** @return the address, its domain in lower case */
    public String getAddress() {
        return address;
    }

    public void setAddress(String address) {
        this.address = address;
    }

    /** @return the list it is suppressed for, or null: for all mail */
    public String getList() {
        return list;
    }

    public void setList(String list) {
        this.list = list;
    }

    /** @return HARD_BOUNCE, COMPLAINT, UNSUBSCRIBE or MANUAL */
    public String getReason() {
        return reason;
    }

    public void setReason(String reason) {
        this.reason = reason;
    }

    /** @return the mail whose bounce or complaint put it here, or null */
    public Long getMailId() {
        return mailId;
    }

    public void setMailId(Long mailId) {
        this.mailId = mailId;
    }

    /** @return the report's status and diagnostic, or the operator's note; may be null */
    public String getDetail() {
        return detail;
    }

    public void setDetail(String detail) {
        this.detail = detail;
    }

    /** @return when it was added, ISO-8601 UTC */
    public String getCreatedAt() {
        return createdAt;
    }

    public void setCreatedAt(String createdAt) {
        this.createdAt = createdAt;
    }
}
