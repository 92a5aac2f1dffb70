package dev.mailqueue.api;

import dev.mailqueue.api.validation.DeliverableMail;
import dev.mailqueue.api.validation.MailAddress;
import dev.mailqueue.api.validation.PlainText;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;

import java.io.Serializable;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One mail to enqueue, as a caller describes it: the JSON body of {@code POST /api/mails} and the
 * argument of {@link MailQueue#enqueue(MailRequest)}. Addresses are mailboxes: bare ({@code user@example.com})
 * or with a display name ({@code "Doe, Jane" <jane@example.com>}, see {@link Mailboxes#named}); Unicode
 * domains and local parts are accepted ({@link MailAddress}). Limits are those of {@link MailLimits}.
 * A request that breaks a rule is refused whole with an {@link InvalidMailException} naming the field.
 */
@DeliverableMail
public class MailRequest implements Serializable, Cloneable {

    private static final long serialVersionUID = 1L;

    @NotNull(message = "is required")
    @MailAddress
    private String from;

    @Size(max = MailLimits.DISPLAY_NAME_CHARS, message = "must be at most {max} characters")
    @PlainText
    private String fromName;

    @MailAddress
    private String replyTo;

    private List<@NotNull(message = "must not be null") @MailAddress String> to = new ArrayList<>();

    private List<@NotNull(message = "must not be null") @MailAddress String> cc = new ArrayList<>();

    private List<@NotNull(message = "must not be null") @MailAddress String> bcc = new ArrayList<>();

    @Size(max = MailLimits.SUBJECT_CHARS, message = "must be at most {max} characters (RFC 5322 2.1.1)")
    @PlainText
    private String subject;

    @Size(max = MailLimits.BODY_CHARS, message = "must be at most {max} characters")
    @PlainText(multiline = true)
    private String text;

    @Size(max = MailLimits.BODY_CHARS, message = "must be at most {max} characters")
    @PlainText(multiline = true)
    private String html;

    private TemplateRef template;

    @Min(value = MailLimits.PRIORITY_MIN, message = "must be between 0 and 9")
    @Max(value = MailLimits.PRIORITY_MAX, message = "must be between 0 and 9")
    private Integer priority;

    private List<Attachment> attachments = new ArrayList<>();

    // Custom header fields in the order given. A LinkedHashMap keeps that order and marshals over IIOP.
    private LinkedHashMap<String, String> headers = new LinkedHashMap<>();

    // Times are kept as ISO-8601 text: Liberty's ORB (Yoko) cannot marshal java.time types on Java 17
    // (java.time is not open to it), so the remote view would fail. The accessors speak Instant.
    private String notBefore;

    private String expiresAt;

    // The same two times, parsed once: a request is read several times on its way in (validation, the fingerprint,
    // the factory) and Instant.parse costs microseconds each time (16 % of Liberty's CPU samples in bulk enqueue,
    // BENCHMARKS.md). Transient: only the text above travels.
    private transient Instant notBeforeInstant;

    private transient Instant expiresAtInstant;

    private boolean perRecipient;

    // A String (not an enum): accounts are server configuration, and the value travels over IIOP.
    @Pattern(regexp = MailLimits.ACCOUNT_NAME, message = "is not an account name (A-Z a-z 0-9 _ -, 1 to 64 characters)")
    private String account;

    @Pattern(regexp = MailLimits.LIST_NAME, message = "is not a list name (A-Z a-z 0-9 . _ -, 1 to 64 characters)")
    private String unsubscribeList;

    @Size(max = MailLimits.REFERENCE_CHARS, message = "must be at most {max} characters")
    @PlainText
    private String reference;

    @Pattern(regexp = MailLimits.CAMPAIGN_NAME, message = "is not a campaign name (A-Z a-z 0-9 . _ -, 1 to 64 characters)")
    private String campaign;

    @Size(max = MailLimits.TAGS, message = "must hold at most {max} tags")
    private List<@NotNull(message = "must not be null")
            @Pattern(regexp = MailLimits.TAG, message = "is not a tag (A-Z a-z 0-9 . _ - :, 1 to 64 characters)") String> tags
            = new ArrayList<>();

    /** An empty request; JSON-B and Java callers fill it through the setters or the fluent methods. */
    public MailRequest() {
    }

    /** @return the sender's mailbox, required; its address is also the envelope sender (RFC 5321 MAIL FROM) */
    public String getFrom() {
        return from;
    }

    public void setFrom(String from) {
        this.from = from;
    }

    /** @return the sender's display name, optional, at most 200 characters, no control characters but tab */
    public String getFromName() {
        return fromName;
    }

    public void setFromName(String fromName) {
        this.fromName = fromName;
    }

    /** @return the Reply-To address, optional */
    public String getReplyTo() {
        return replyTo;
    }

    public void setReplyTo(String replyTo) {
        this.replyTo = replyTo;
    }

    /** @return the To recipients; to, cc and bcc hold 1 to 100 addresses together */
    public List<String> getTo() {
        return to;
    }

    public void setTo(List<String> to) {
        this.to = to;
    }

    /** @return the Cc recipients */
    public List<String> getCc() {
        return cc;
    }

    public void setCc(List<String> cc) {
        this.cc = cc;
    }

    /** @return the Bcc recipients: in the SMTP envelope, never in the headers */
    public List<String> getBcc() {
        return bcc;
    }

    public void setBcc(List<String> bcc) {
        this.bcc = bcc;
    }

    /** @return the subject, optional, at most 998 characters, no control characters but tab */
    public String getSubject() {
        return subject;
    }

    public void setSubject(String subject) {
        this.subject = subject;
    }

    /**
     * @return the plain-text body; a text or an HTML body (or both) is required; at most 1,048,576
     *         characters, no control characters but tab, CR and LF
     */
    public String getText() {
        return text;
    }

    public void setText(String text) {
        this.text = text;
    }

    /** @return the HTML body; with a text body too the mail is multipart/alternative */
    public String getHtml() {
        return html;
    }

    public void setHtml(String html) {
        this.html = html;
    }

    /** @return priority 0 (lowest) to 9 (highest); null means {@link MailLimits#PRIORITY_DEFAULT} */
    public Integer getPriority() {
        return priority;
    }

    public void setPriority(Integer priority) {
        this.priority = priority;
    }

    /**
     * @return the earliest time the mail may be sent; null or past means as soon as possible. Between
     *         {@link MailLimits#EARLIEST_INSTANT} and {@link MailLimits#LATEST_INSTANT}, and not after the
     *         mail's expiry (its expiresAt, and the queue's maximum lifetime from now): a mail that could
     *         never be sent is refused.
     */
    public Instant getNotBefore() {
        if (notBeforeInstant == null && notBefore != null) {
            notBeforeInstant = Instant.parse(notBefore);
        }
        return notBeforeInstant;
    }

    public void setNotBefore(Instant notBefore) {
        this.notBefore = notBefore == null ? null : notBefore.toString();
        this.notBeforeInstant = notBefore;
    }

    /**
     * @return the time after which the mail must not be sent any more: if it is still queued then, it
     *         becomes {@link MailStatus#EXPIRED}; null for none. The queue's maximum lifetime
     *         ({@code mailqueue.delivery.max-lifetime.ms}, 5 days by default) applies as well, whichever
     *         comes first. Must be in the future, after {@link #getNotBefore()}, and not after
     *         {@link MailLimits#LATEST_INSTANT}.
     */
    public Instant getExpiresAt() {
        if (expiresAtInstant == null && expiresAt != null) {
            expiresAtInstant = Instant.parse(expiresAt);
        }
        return expiresAtInstant;
    }

    public void setExpiresAt(Instant expiresAt) {
        this.expiresAt = expiresAt == null ? null : expiresAt.toString();
        this.expiresAtInstant = expiresAt;
    }

    /**
     * @return true to queue one copy per recipient (seed 004: "a copy of the message for each
     *         recipient"): each copy has its own row, Message-ID, status, retries and resend, and shows
     *         only its own recipient in To; false (the default) for one mail to all recipients
     */
    public boolean isPerRecipient() {
        return perRecipient;
    }

    public void setPerRecipient(boolean perRecipient) {
        this.perRecipient = perRecipient;
    }

    /**
     * @return the attached files, in order; with any, the mail is multipart/mixed: the body (text,
     *         HTML or multipart/alternative) first, then one part per file. Limits: the settings
     *         {@code mailqueue.attachments.max-count}, {@code .max-total-bytes} and {@code .blocked-extensions}
     *         (docs/configuration.md).
     */
    public List<Attachment> getAttachments() {
        return attachments;
    }

    public void setAttachments(List<Attachment> attachments) {
        this.attachments = attachments;
    }

    /**
     * @return custom header fields, name to value, sent in this order. Names are RFC 5322 §3.6.8
     *         field names (printable ASCII 33 to 126 except colon, at most 76 characters); values at
     *         most 998 characters without CR, LF or other control characters but tab, non-ASCII text
     *         is sent RFC 2047-encoded. Names the queue writes itself (From, To, Cc, Bcc, Sender,
     *         Reply-To, Subject, Date, Message-ID, Return-Path, MIME-Version, Content-*) are refused,
     *         in any letter case; at most 50 fields.
     */
    public Map<String, String> getHeaders() {
        return headers;
    }

    public void setHeaders(Map<String, String> headers) {
        this.headers = headers == null ? null : new LinkedHashMap<>(headers);
    }

    /**
     * @return the SMTP account (a {@code <mailSession>} of the server, by its account name, matching
     *         {@link MailLimits#ACCOUNT_NAME}) to send through, optional; one the server does not have, or
     *         one the caller's account allow-list does not name, is refused. Without it the server's
     *         routing rules choose: the account serving the sender's domain, else the default account.
     */
    public String getAccount() {
        return account;
    }

    public void setAccount(String account) {
        this.account = account;
    }

    /**
     * @return the mailing list the mail belongs to, for one-click unsubscribe (RFC 8058), or null for
     *         none. When set, the queue adds {@code List-Unsubscribe: <url>} and
     *         {@code List-Unsubscribe-Post: List-Unsubscribe=One-Click} (RFC 2369, RFC 8058), the URL
     *         carrying a signed token for the recipient and this list; a POST to it puts the recipient on
     *         the suppression list for this list only, and later mails of the list to that address are
     *         {@link MailStatus#SUPPRESSED}. A list name matches {@link MailLimits#LIST_NAME}. The mail must
     *         have exactly one recipient, or be sent {@link #isPerRecipient() per recipient}, since each
     *         recipient needs a link of their own; it may not set List-Unsubscribe or List-Unsubscribe-Post
     *         in {@link #getHeaders()}; and the server must have one-click unsubscribe configured
     *         ({@code mailqueue.unsubscribe.url} and {@code mailqueue.unsubscribe.secret}). A recipient already
     *         unsubscribed from this list is recorded as suppressed, not sent to.
     */
    public String getUnsubscribeList() {
        return unsubscribeList;
    }

    public void setUnsubscribeList(String unsubscribeList) {
        this.unsubscribeList = unsubscribeList;
    }

    /**
     * @return the caller's own reference for the mail (e.g. an order number), optional, at most 255
     *         characters, no control characters; returned in the mail's view and in every delivery event,
     *         and searchable
     */
    public String getReference() {
        return reference;
    }

    public void setReference(String reference) {
        this.reference = reference;
    }

    /** Fluent form of {@link #setReference(String)}. @return this request */
    public MailRequest reference(String reference) {
        this.reference = reference;
        return this;
    }

    /**
     * @return the campaign the mail belongs to, optional, matching {@link MailLimits#CAMPAIGN_NAME}: an
     *         operator can pause, resume or cancel everything still queued of a campaign in one call, and
     *         search, statistics and webhook endpoints filter by it
     */
    public String getCampaign() {
        return campaign;
    }

    public void setCampaign(String campaign) {
        this.campaign = campaign;
    }

    /** Fluent form of {@link #setCampaign(String)}. @return this request */
    public MailRequest campaign(String campaign) {
        this.campaign = campaign;
        return this;
    }

    /**
     * @return the mail's tags, at most {@value MailLimits#TAGS}, each matching {@link MailLimits#TAG};
     *         repeats are kept once; carried in every delivery event, and searchable
     */
    public List<String> getTags() {
        return tags;
    }

    public void setTags(List<String> tags) {
        this.tags = tags;
    }

    /** Fluent form of {@link #setTags(List)}. @return this request */
    public MailRequest tags(String... tags) {
        this.tags = new ArrayList<>(List.of(tags));
        return this;
    }

    /** Fluent form of {@link #setUnsubscribeList(String)}. @return this request */
    public MailRequest unsubscribeList(String list) {
        this.unsubscribeList = list;
        return this;
    }

    /**
     * @return the stored template the mail is rendered from, in place of {@link #getSubject()}, {@link #getText()}
     *         and {@link #getHtml()} (which must then be absent), or null for a mail composed by the caller. It is
     *         rendered when the mail is enqueued: an unknown template, a missing variable, a variable of the wrong
     *         shape or a failed render refuses the mail with an {@link InvalidMailException} naming the template,
     *         its locale and the variable, and nothing is queued
     */
    public TemplateRef getTemplate() {
        return template;
    }

    public void setTemplate(TemplateRef template) {
        this.template = template;
    }

    /**
     * Fluent form of {@link #setTemplate(TemplateRef)}.
     *
     * @param name      the template's name
     * @param locale    a BCP 47 tag, or null for the template's default locale
     * @param variables the variables, by name
     * @return this request
     */
    public MailRequest template(String name, String locale, Map<String, ?> variables) {
        this.template = new TemplateRef(name, locale, variables);
        return this;
    }

    /**
     * The queue's own step after rendering a {@link #getTemplate() template}: the caller's request is left as it
     * was (a local EJB caller holds it).
     *
     * @param subject the rendered subject, or null
     * @param text    the rendered text part, or null
     * @param html    the rendered HTML part, or null
     * @return a copy of this request with that content; its lists, maps and template are shared with this one
     */
    public MailRequest rendered(String subject, String text, String html) {
        try {
            MailRequest copy = (MailRequest) super.clone();
            copy.subject = subject;
            copy.text = text;
            copy.html = html;
            return copy;
        } catch (CloneNotSupportedException e) {
            throw new IllegalStateException("MailRequest is Cloneable", e);
        }
    }

    /** Fluent form of {@link #setAccount(String)}. @return this request */
    public MailRequest account(String account) {
        this.account = account;
        return this;
    }

    /** Fluent form of {@link #setFrom(String)}. @return this request */
    public MailRequest from(String address) {
        this.from = address;
        return this;
    }

    /** Fluent form of {@link #setFromName(String)}. @return this request */
    public MailRequest fromName(String name) {
        this.fromName = name;
        return this;
    }

    /** Fluent form of {@link #setReplyTo(String)}. @return this request */
    public MailRequest replyTo(String address) {
        this.replyTo = address;
        return this;
    }

    /** Adds To recipients. @return this request */
    public MailRequest to(String... addresses) {
        this.to = append(this.to, addresses);
        return this;
    }

    /** Adds Cc recipients. @return this request */
    public MailRequest cc(String... addresses) {
        this.cc = append(this.cc, addresses);
        return this;
    }

    /** Adds Bcc recipients. @return this request */
    public MailRequest bcc(String... addresses) {
        this.bcc = append(this.bcc, addresses);
        return this;
    }

    /** Fluent form of {@link #setSubject(String)}. @return this request */
    public MailRequest subject(String subject) {
        this.subject = subject;
        return this;
    }

    /** Fluent form of {@link #setText(String)}. @return this request */
    public MailRequest text(String text) {
        this.text = text;
        return this;
    }

    /** Fluent form of {@link #setHtml(String)}. @return this request */
    public MailRequest html(String html) {
        this.html = html;
        return this;
    }

    /** Fluent form of {@link #setPriority(Integer)}. @return this request */
    public MailRequest priority(int priority) {
        this.priority = priority;
        return this;
    }

    /** Fluent form of {@link #setNotBefore(Instant)}. @return this request */
    public MailRequest notBefore(Instant notBefore) {
        setNotBefore(notBefore);
        return this;
    }

    /** Fluent form of {@link #setExpiresAt(Instant)}. @return this request */
    public MailRequest expiresAt(Instant expiresAt) {
        setExpiresAt(expiresAt);
        return this;
    }

    /** Fluent form of {@link #setPerRecipient(boolean)}. @return this request */
    public MailRequest perRecipient(boolean perRecipient) {
        this.perRecipient = perRecipient;
        return this;
    }

    /** Adds an attachment. @return this request */
    public MailRequest attach(String filename, String contentType, byte[] content) {
        List<Attachment> result = attachments == null ? new ArrayList<>() : new ArrayList<>(attachments);
        result.add(new Attachment(filename, contentType, content));
        this.attachments = result;
        return this;
    }

    /** Adds (or replaces) a custom header field. @return this request */
    public MailRequest header(String name, String value) {
        LinkedHashMap<String, String> result = headers == null ? new LinkedHashMap<>() : new LinkedHashMap<>(headers);
        result.put(name, value);
        this.headers = result;
        return this;
    }

    private static List<String> append(List<String> list, String... addresses) {
        List<String> result = list == null ? new ArrayList<>() : new ArrayList<>(list);
        result.addAll(Arrays.asList(addresses));
        return result;
    }
}
