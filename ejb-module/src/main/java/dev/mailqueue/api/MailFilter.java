package dev.mailqueue.api;

import java.io.Serializable;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Which mails an operator means: the criteria of a search and of a bulk action (requeue, cancel,
 * delete). Every criterion that is set must hold (AND); an unset one (null or empty) matches all.
 * Text criteria match a part of the value, case-sensitively, with no wildcards of their own.
 */
public class MailFilter implements Serializable {

    private static final long serialVersionUID = 1L;

    private ArrayList<Long> ids = new ArrayList<>();
    private ArrayList<MailStatus> statuses = new ArrayList<>();
    private String recipient;
    private String sender;
    private String enqueuedBy;
    private String campaign;
    private String tag;
    private String reference;
    // ISO-8601 text, as in MailView: the ORB cannot marshal java.time types on Java 17.
    private String createdFrom;
    private String createdTo;
    private String errorText;
    private String subject;
    private String account;
    private Boolean bounced;

    /** An empty filter: matches every mail. */
    public MailFilter() {
    }

    /** @return the mails' ids; empty means any id */
    public List<Long> getIds() {
        return ids;
    }

    public void setIds(List<Long> ids) {
        this.ids = ids == null ? new ArrayList<>() : new ArrayList<>(ids);
    }

    /** @return the statuses to match; empty means any status */
    public List<MailStatus> getStatuses() {
        return statuses;
    }

    public void setStatuses(List<MailStatus> statuses) {
        this.statuses = statuses == null ? new ArrayList<>() : new ArrayList<>(statuses);
    }

    /** @return part of a To, Cc or Bcc address, e.g. {@code @example.org} */
    public String getRecipient() {
        return recipient;
    }

    public void setRecipient(String recipient) {
        this.recipient = recipient;
    }

    /** @return part of the From address */
    public String getSender() {
        return sender;
    }

    public void setSender(String sender) {
        this.sender = sender;
    }

    /** @return the user that enqueued the mails, exactly */
    public String getEnqueuedBy() {
        return enqueuedBy;
    }

    public void setEnqueuedBy(String enqueuedBy) {
        this.enqueuedBy = enqueuedBy;
    }

    /** @return the mails' campaign, exactly */
    public String getCampaign() {
        return campaign;
    }

    public void setCampaign(String campaign) {
        this.campaign = campaign;
    }

    /** @return a tag the mails carry, exactly */
    public String getTag() {
        return tag;
    }

    public void setTag(String tag) {
        this.tag = tag;
    }

    /** @return the caller's reference of the mails, exactly */
    public String getReference() {
        return reference;
    }

    public void setReference(String reference) {
        this.reference = reference;
    }

    /** @return created at or after this instant */
    public Instant getCreatedFrom() {
        return createdFrom == null ? null : Instant.parse(createdFrom);
    }

    public void setCreatedFrom(Instant createdFrom) {
        this.createdFrom = createdFrom == null ? null : createdFrom.toString();
    }

    /** @return created before this instant (exclusive) */
    public Instant getCreatedTo() {
        return createdTo == null ? null : Instant.parse(createdTo);
    }

    public void setCreatedTo(Instant createdTo) {
        this.createdTo = createdTo == null ? null : createdTo.toString();
    }

    /** @return part of the last error, e.g. {@code 550} or {@code Connection refused} */
    public String getErrorText() {
        return errorText;
    }

    public void setErrorText(String errorText) {
        this.errorText = errorText;
    }

    /**
     * @return words of the subject: only mails whose subject contains each of them (separated by white
     *         space; in any order, without regard to case), e.g. {@code invoice 2026}
     */
    public String getSubject() {
        return subject;
    }

    public void setSubject(String subject) {
        this.subject = subject;
    }

    /** @return the name of the SMTP account the mails are routed to, exactly */
    public String getAccount() {
        return account;
    }

    public void setAccount(String account) {
        this.account = account;
    }

    /**
     * @return true: only mails with an attempt the SMTP server refused permanently (a 5yz reply,
     *         RFC 5321 §4.2.1), i.e. bounced at submission, or that bounced or drew a complaint later (a
     *         report read from the bounce mailbox); false: only mails without either; null: either
     */
    public Boolean getBounced() {
        return bounced;
    }

    public void setBounced(Boolean bounced) {
        this.bounced = bounced;
    }

    /** @return true when no criterion is set, so the filter matches every mail */
    public boolean isEmpty() {
        return statuses.isEmpty() && onlyStatuses();
    }

    /** @return true when no criterion but the statuses is set (and those may be none); not a bean property */
    public boolean onlyStatuses() {
        return ids.isEmpty() && recipient == null && sender == null && enqueuedBy == null
                && campaign == null && tag == null && reference == null
                && createdFrom == null && createdTo == null && errorText == null && bounced == null
                && subject == null && account == null;
    }

    /** Fluent: {@code new MailFilter().withStatuses(FAILED).withErrorText("550")}. @return this */
    public MailFilter withStatuses(MailStatus... values) {
        setStatuses(List.of(values));
        return this;
    }

    /** @return this, matching only these ids */
    public MailFilter withIds(Long... values) {
        setIds(List.of(values));
        return this;
    }

    /** @return this, matching only mails whose last error contains {@code text} */
    public MailFilter withErrorText(String text) {
        setErrorText(text);
        return this;
    }

    /** @return this, matching only mails a recipient of which contains {@code text} */
    public MailFilter withRecipient(String text) {
        setRecipient(text);
        return this;
    }
}
