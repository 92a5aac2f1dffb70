package dev.mailqueue.api;

import java.io.Serializable;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A finished RFC 5322 message to enqueue as it is ({@link MailQueue#enqueueRaw(RawMail, String)}, and
 * {@code POST /api/mails} with {@code Content-Type: message/rfc822}), with an optional envelope and the
 * queue's options. The message is stored and sent byte for byte, except that the queue removes its
 * {@code Bcc} field and adds {@code Message-ID} and {@code Date} where it has none (RFC 5322 §3.6); an
 * existing Message-ID is kept and is the mail's identity. One-click unsubscribe fields are written when it
 * is sent, as for any mail of a list.
 *
 * <p>The envelope: {@link #getEnvelopeFrom() envelopeFrom} is the envelope sender (SMTP MAIL FROM, RFC 5321
 * §4.1.1.2), by default the {@code Sender} field's address, else the first {@code From} address;
 * {@link #getEnvelopeTo() envelopeTo} are the recipients (RCPT TO), by default the addresses of the
 * {@code To}, {@code Cc} and {@code Bcc} fields. The other options mean what they mean on {@link MailRequest},
 * with the same limits ({@link MailLimits}).
 */
public class RawMail implements Serializable {

    private static final long serialVersionUID = 1L;

    // Lists are plain ArrayLists and times ISO-8601 text, as on MailRequest: Liberty's ORB (Yoko) marshals
    // neither an unmodifiable list's class nor java.time types on Java 17, and the remote view would fail.
    private byte[] message;
    private String envelopeFrom;
    private ArrayList<String> envelopeTo = new ArrayList<>();
    private Integer priority;
    private String notBefore;
    private String expiresAt;
    // The two times, parsed once: a request is read several times on its way in, and Instant.parse costs
    // microseconds each time (MailRequest). Transient: only the text travels.
    private transient Instant notBeforeInstant;
    private transient Instant expiresAtInstant;
    private String account;
    private String campaign;
    private String reference;
    private ArrayList<String> tags = new ArrayList<>();
    private String unsubscribeList;

    /** An empty one; set at least {@link #setMessage(byte[]) the message}. */
    public RawMail() {
    }

    /**
     * @param message the message: header section, an empty line, the body; lines end in CRLF (a bare LF is
     *                taken as CRLF when it is sent)
     */
    public RawMail(byte[] message) {
        this.message = message;
    }

    /** @return the message as given, or null */
    public byte[] getMessage() {
        return message;
    }

    /**
     * @param message the RFC 5322 message, at most {@code mailqueue.http.max-request-bytes} bytes, every line at
     *                most 998 octets without its CRLF (RFC 5322 §2.1.1)
     */
    public void setMessage(byte[] message) {
        this.message = message;
    }

    /** @return the envelope sender, or null for the message's Sender, else its first From address */
    public String getEnvelopeFrom() {
        return envelopeFrom;
    }

    /** @param envelopeFrom a bare address (RFC 5321 reverse-path), or null */
    public void setEnvelopeFrom(String envelopeFrom) {
        this.envelopeFrom = envelopeFrom;
    }

    /** @return the envelope recipients; empty: the addresses of the To, Cc and Bcc fields */
    public List<String> getEnvelopeTo() {
        return envelopeTo;
    }

    /** @param envelopeTo bare addresses, at most {@link MailLimits#RECIPIENTS}; null or empty for the message's */
    public void setEnvelopeTo(List<String> envelopeTo) {
        this.envelopeTo = envelopeTo == null ? new ArrayList<>() : new ArrayList<>(envelopeTo);
    }

    /** @return 0 to 9, or null for {@link MailLimits#PRIORITY_DEFAULT} */
    public Integer getPriority() {
        return priority;
    }

    /** @param priority 0 to 9, higher first; null for the default */
    public void setPriority(Integer priority) {
        this.priority = priority;
    }

    /** @return not sent before this, or null */
    public Instant getNotBefore() {
        if (notBeforeInstant == null && notBefore != null) {
            notBeforeInstant = Instant.parse(notBefore);
        }
        return notBeforeInstant;
    }

    /** @param notBefore not sent before this, or null for now */
    public void setNotBefore(Instant notBefore) {
        this.notBefore = notBefore == null ? null : notBefore.toString();
        this.notBeforeInstant = notBefore;
    }

    /** @return not sent after this, or null */
    public Instant getExpiresAt() {
        if (expiresAtInstant == null && expiresAt != null) {
            expiresAtInstant = Instant.parse(expiresAt);
        }
        return expiresAtInstant;
    }

    /** @param expiresAt EXPIRED instead of sent after this; null for the queue's maximum lifetime */
    public void setExpiresAt(Instant expiresAt) {
        this.expiresAt = expiresAt == null ? null : expiresAt.toString();
        this.expiresAtInstant = expiresAt;
    }

    /** @return the SMTP account asked for, or null for the server's routing */
    public String getAccount() {
        return account;
    }

    /** @param account an SMTP account of the server the caller may use, or null */
    public void setAccount(String account) {
        this.account = account;
    }

    /** @return the campaign, or null */
    public String getCampaign() {
        return campaign;
    }

    /** @param campaign the campaign, as on {@link MailRequest#setCampaign}, or null */
    public void setCampaign(String campaign) {
        this.campaign = campaign;
    }

    /** @return the caller's reference, or null */
    public String getReference() {
        return reference;
    }

    /** @param reference the caller's own reference, at most 255 characters, or null */
    public void setReference(String reference) {
        this.reference = reference;
    }

    /** @return the tags */
    public List<String> getTags() {
        return tags;
    }

    /** @param tags at most 10, as on {@link MailRequest#setTags}; null for none */
    public void setTags(List<String> tags) {
        this.tags = tags == null ? new ArrayList<>() : new ArrayList<>(tags);
    }

    /** @return the list its one recipient may leave by one-click unsubscribe, or null */
    public String getUnsubscribeList() {
        return unsubscribeList;
    }

    /**
     * @param unsubscribeList a list the caller owns, as on {@link MailRequest#setUnsubscribeList}; the message
     *                        must then have one recipient and no {@code List-Unsubscribe} field of its own
     */
    public void setUnsubscribeList(String unsubscribeList) {
        this.unsubscribeList = unsubscribeList;
    }
}
