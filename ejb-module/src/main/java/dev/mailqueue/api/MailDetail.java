package dev.mailqueue.api;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * One mail as the operator's console shows it ({@code GET /api/admin/mails/{id}}): the full
 * {@link MailView} and also the From name and Reply-To, both bodies, the list it belongs to, when it was
 * first attempted, and every recipient with its outcome ({@link RecipientOutcome}). Its attachments are in
 * {@link #getAttachments()}'s order, which {@code GET /api/admin/mails/{id}/attachments/{index}} counts from 0.
 */
public class MailDetail extends MailView {

    private static final long serialVersionUID = 1L;

    private String fromName;
    private String replyTo;
    private String text;
    private String html;
    private String unsubscribeList;
    private String firstAttemptAt; // ISO-8601, as in MailView
    private List<RecipientOutcome> recipientOutcomes = new ArrayList<>();

    /** For JSON-B. */
    public MailDetail() {
    }

    /** @return the From display name, or null */
    public String getFromName() {
        return fromName;
    }

    public void setFromName(String fromName) {
        this.fromName = fromName;
    }

    /** @return the Reply-To address, or null */
    public String getReplyTo() {
        return replyTo;
    }

    public void setReplyTo(String replyTo) {
        this.replyTo = replyTo;
    }

    /** @return the plain-text body, or null */
    public String getText() {
        return text;
    }

    public void setText(String text) {
        this.text = text;
    }

    /** @return the HTML body, or null */
    public String getHtml() {
        return html;
    }

    public void setHtml(String html) {
        this.html = html;
    }

    /** @return the list a one-click unsubscribe removes its recipients from, or null */
    public String getUnsubscribeList() {
        return unsubscribeList;
    }

    public void setUnsubscribeList(String unsubscribeList) {
        this.unsubscribeList = unsubscribeList;
    }

    /** @return when the first attempt of the attempt log began, or null before any */
    public Instant getFirstAttemptAt() {
        return firstAttemptAt == null ? null : Instant.parse(firstAttemptAt);
    }

    public void setFirstAttemptAt(Instant firstAttemptAt) {
        this.firstAttemptAt = firstAttemptAt == null ? null : firstAttemptAt.toString();
    }

    /** @return every To, Cc and Bcc recipient in order, with its outcome */
    public List<RecipientOutcome> getRecipientOutcomes() {
        return recipientOutcomes;
    }

    public void setRecipientOutcomes(List<RecipientOutcome> recipientOutcomes) {
        this.recipientOutcomes = recipientOutcomes == null ? new ArrayList<>() : new ArrayList<>(recipientOutcomes);
    }
}
