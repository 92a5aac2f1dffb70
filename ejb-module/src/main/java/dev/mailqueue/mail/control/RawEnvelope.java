package dev.mailqueue.mail.control;

import dev.mailqueue.api.FieldError;
import dev.mailqueue.api.InvalidMailException;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.api.RawMail;
import jakarta.mail.internet.InternetAddress;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The envelope of a raw mail (RFC 5321 §2.3.1: MAIL FROM and RCPT TO, apart from the message's header
 * fields) and its options, put as a {@link MailRequest} so that the rules of a composed mail check them
 * ({@link MailRequestValidator}, {@link SenderPolicy}) and {@link MailFactory} stores them.
 *
 * <p>The envelope sender is {@code envelopeFrom}, else the Sender field's address, else the first From
 * address (as a submission server takes it, RFC 6409 §8.1). The recipients are {@code envelopeTo}, else the
 * addresses of the To, Cc and Bcc fields. Stored as To, Cc and Bcc (what the queue's views show), an envelope
 * recipient is To or Cc where the message's field names it, else Bcc: a blind copy.
 *
 * @param request    the envelope and options as a request; its text is a stand-in and never stored
 * @param explicitTo whether the recipients came from {@code envelopeTo}
 * @param explicitFrom whether the envelope sender came from {@code envelopeFrom}
 */
public record RawEnvelope(MailRequest request, boolean explicitTo, boolean explicitFrom) {

    /** The stand-in body the rule "a mail has a text or an HTML body" sees: a raw mail's body is its message. */
    private static final String BODY = "(the raw message)";

    /**
     * @param mail    the raw mail as the caller gave it
     * @param message its message, parsed
     * @return its envelope, not yet checked against the rules
     */
    public static RawEnvelope of(RawMail mail, RawMessage message) {
        MailRequest request = new MailRequest();
        boolean explicitFrom = mail.getEnvelopeFrom() != null;
        request.setFrom(explicitFrom ? mail.getEnvelopeFrom()
                : message.sender().orElse(message.from().get(0)).getAddress());
        boolean explicitTo = !mail.getEnvelopeTo().isEmpty();
        if (explicitTo) {
            request.setTo(mail.getEnvelopeTo());
        } else {
            request.setTo(message.recipients("To"));
            request.setCc(message.recipients("Cc"));
            request.setBcc(message.recipients("Bcc"));
        }
        request.setText(BODY);
        request.setPriority(mail.getPriority());
        request.setNotBefore(mail.getNotBefore());
        request.setExpiresAt(mail.getExpiresAt());
        request.setAccount(mail.getAccount());
        request.setCampaign(mail.getCampaign());
        request.setReference(mail.getReference());
        request.setTags(mail.getTags());
        request.setUnsubscribeList(mail.getUnsubscribeList());
        return new RawEnvelope(request, explicitTo, explicitFrom);
    }

    /**
     * @param e the validator's refusal of {@link #request()}
     * @return the same refusal, each field named as the caller gave it: {@code envelopeFrom}, {@code envelopeTo[i]},
     *         or the message's field ({@code message.To[i]}, {@code message.From})
     */
    public InvalidMailException renamed(InvalidMailException e) {
        List<FieldError> errors = new ArrayList<>();
        for (FieldError error : e.getErrors()) {
            errors.add(new FieldError(rename(error.getField()), error.getMessage()));
        }
        return new InvalidMailException(errors);
    }

    /** @return the field as the caller knows it */
    public String rename(String field) {
        if (field.equals("from")) {
            return explicitFrom ? "envelopeFrom" : "message.From";
        }
        for (String list : List.of("to", "cc", "bcc")) {
            if (field.equals(list) || field.startsWith(list + "[")) {
                String rest = field.substring(list.length());
                return explicitTo ? "envelopeTo" + rest : "message." + header(list) + rest;
            }
        }
        return field;
    }

    /**
     * @param message the message
     * @param checked {@link #request()} as the validator passed it
     * @return the request to store: {@code checked} as it is, or with {@code envelopeTo} its recipients sorted into
     *         To and Cc where the message's fields name them, the others Bcc
     */
    public ParsedRequest stored(RawMessage message, ParsedRequest checked) {
        return explicitTo ? ParsedRequest.of(sorted(message)) : checked;
    }

    private MailRequest sorted(RawMessage message) {
        Set<String> to = lowerCase(message.recipients("To"));
        Set<String> cc = lowerCase(message.recipients("Cc"));
        List<String> toList = new ArrayList<>();
        List<String> ccList = new ArrayList<>();
        List<String> bccList = new ArrayList<>();
        for (String recipient : request.getTo()) {
            String bare = bare(recipient);
            (to.contains(bare) ? toList : cc.contains(bare) ? ccList : bccList).add(recipient);
        }
        MailRequest stored = copyOptions(request);
        stored.setTo(toList);
        stored.setCc(ccList);
        stored.setBcc(bccList);
        return stored;
    }

    private static MailRequest copyOptions(MailRequest request) {
        MailRequest copy = new MailRequest();
        copy.setFrom(request.getFrom());
        copy.setText(request.getText());
        copy.setPriority(request.getPriority());
        copy.setNotBefore(request.getNotBefore());
        copy.setExpiresAt(request.getExpiresAt());
        copy.setAccount(request.getAccount());
        copy.setCampaign(request.getCampaign());
        copy.setReference(request.getReference());
        copy.setTags(request.getTags());
        copy.setUnsubscribeList(request.getUnsubscribeList());
        return copy;
    }

    private static String header(String list) {
        return switch (list) {
            case "to" -> "To";
            case "cc" -> "Cc";
            default -> "Bcc";
        };
    }

    private static Set<String> lowerCase(List<String> addresses) {
        return addresses.stream().map(a -> a.toLowerCase(Locale.ROOT)).collect(Collectors.toSet());
    }

    /** @return the bare address of a mailbox as a caller may write it ({@code Name <a@b>} or {@code a@b}), lower case */
    private static String bare(String mailbox) {
        try {
            return new InternetAddress(mailbox).getAddress().toLowerCase(Locale.ROOT);
        } catch (jakarta.mail.internet.AddressException e) {
            return mailbox.toLowerCase(Locale.ROOT);
        }
    }
}
