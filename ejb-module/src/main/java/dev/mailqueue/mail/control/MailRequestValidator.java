package dev.mailqueue.mail.control;

import dev.mailqueue.account.control.Account;
import dev.mailqueue.account.control.Accounts;
import dev.mailqueue.address.control.Mailbox;
import dev.mailqueue.api.FieldError;
import dev.mailqueue.api.InvalidMailException;
import dev.mailqueue.api.MailLimits;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.unsubscribe.control.UnsubscribeLinks;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.validation.ConstraintViolation;
import jakarta.validation.ElementKind;
import jakarta.validation.Path;
import jakarta.validation.Validator;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Runs the Bean Validation rules of {@link MailRequest}, then the rules for attachments
 * ({@link AttachmentPolicy}) and custom header fields ({@link HeaderPolicy}), checks that an account it
 * names is configured ({@link Accounts}; the answer does not list the others) and that the mail is due
 * before it expires ({@link MailLifetime#expiry}), that the sender's name is given once (in {@code from} or in
 * {@code fromName}), that an account set to {@code smtputf8=refuse} gets no address with a non-ASCII local
 * part (RFC 6531), and turns what is broken into an
 * {@link InvalidMailException} whose fields are named as in the JSON ({@code to[0]}, {@code subject},
 * {@code attachments[1].filename}, {@code headers.X-Campaign}, {@code account}). A request that passes comes back
 * as a {@link ParsedRequest}: each address is parsed once here, and the rules, the sender policy and the factory
 * read those mailboxes.
 */
@ApplicationScoped
public class MailRequestValidator {

    @Inject
    Validator validator;

    @Inject
    AttachmentPolicy attachments;

    @Inject
    HeaderPolicy headers;

    @Inject
    Accounts accounts;

    @Inject
    UnsubscribeLinks unsubscribeLinks;

    @Inject
    MailLifetime lifetime; // the expiry a mail will get, for the delivery window

    /**
     * @param request the request to check, may be null
     * @return the request with its addresses parsed
     * @throws InvalidMailException when the request is null or breaks any rule; lists every violation
     */
    public ParsedRequest check(MailRequest request) throws InvalidMailException {
        if (request == null) {
            throw new InvalidMailException(List.of(new FieldError("", "a mail is required")));
        }
        Set<ConstraintViolation<MailRequest>> violations = validator.validate(request);
        List<FieldError> errors = new ArrayList<>();
        violations.forEach(v -> errors.add(new FieldError(fieldName(v.getPropertyPath()), v.getMessage())));
        errors.addAll(attachments.check(request.getAttachments()));
        errors.addAll(headers.check(request.getHeaders()));
        Addresses parsed = Addresses.of(request);
        checkSenderName(request, parsed.from(), errors);
        String account = request.getAccount();
        if (account != null && accounts.find(account).isEmpty() && noError(errors, "account")) {
            // Without the list of the server's accounts: they are no business of a caller (allowed-accounts).
            errors.add(new FieldError("account", "is not an SMTP account of this server"));
        }
        if (noError(errors, "account") && request.getFrom() != null && noError(errors, "from")) {
            checkSmtpUtf8(request, parsed, errors);
        }
        if (noError(errors, "notBefore") && noError(errors, "expiresAt")) {
            checkDeliveryWindow(request, errors);
        }
        if (request.getUnsubscribeList() != null && noError(errors, "unsubscribeList")) {
            checkUnsubscribe(request, parsed, errors);
        }
        if (!errors.isEmpty()) {
            errors.sort(Comparator.comparing(FieldError::getField).thenComparing(FieldError::getMessage));
            throw new InvalidMailException(errors);
        }
        return ParsedRequest.of(request, parsed.from(), parsed.replyTo(), parsed.to(), parsed.cc(), parsed.bcc());
    }

    /**
     * A request's addresses, each parsed once, in the places the request gives them; null where there is none or
     * it is no mailbox (Bean Validation's {@code @MailAddress} names it).
     */
    private record Addresses(Mailbox from, Mailbox replyTo, List<Mailbox> to, List<Mailbox> cc, List<Mailbox> bcc) {

        static Addresses of(MailRequest request) {
            return new Addresses(ParsedRequest.parseOrNull(request.getFrom()), ParsedRequest.parseOrNull(request.getReplyTo()),
                    parseAll(request.getTo()), parseAll(request.getCc()), parseAll(request.getBcc()));
        }

        private static List<Mailbox> parseAll(List<String> texts) {
            List<Mailbox> result = new ArrayList<>(texts == null ? 0 : texts.size());
            if (texts != null) {
                texts.forEach(text -> result.add(ParsedRequest.parseOrNull(text)));
            }
            return result;
        }

        /** @return how many recipients the mail has once repeats are dropped (as {@link ParsedRequest} drops them) */
        long distinctRecipients() {
            return Stream.of(to, cc, bcc).flatMap(List::stream).filter(Objects::nonNull)
                    .map(m -> m.address().toLowerCase(Locale.ROOT)).distinct().count();
        }
    }

    /**
     * A mail due only after it expires could never be sent: it would stay QUEUED until retention, pinning
     * the age of the oldest queued mail. Its expiry is what {@link MailLifetime#expiry} gives it: the
     * earlier of its expiresAt and now plus {@code mailqueue.delivery.max-lifetime.ms}.
     */
    private void checkDeliveryWindow(MailRequest request, List<FieldError> errors) {
        Instant notBefore = request.getNotBefore();
        if (notBefore == null) {
            return;
        }
        Instant expiry = lifetime.expiry(request.getExpiresAt(), Instant.now());
        if (expiry != null && !notBefore.isBefore(expiry)) {
            errors.add(new FieldError("notBefore", "must be before the mail expires at " + expiry
                    + " (the earlier of its expiresAt and now plus the queue's maximum lifetime,"
                    + " mailqueue.delivery.max-lifetime.ms): a mail due later could never be sent"));
        }
    }

    /**
     * An account set to {@code smtputf8=refuse} takes no address with a non-ASCII local part (RFC 6531): its
     * relay never offers SMTPUTF8, and such a recipient could only fail later.
     */
    private void checkSmtpUtf8(MailRequest request, Addresses parsed, List<FieldError> errors) {
        Account account = accounts.route(request.getAccount(), parsed.from().address());
        if (!account.refusesSmtpUtf8()) {
            return;
        }
        String reason = "has a non-ASCII local part, which needs SMTPUTF8 (RFC 6531); account " + account.name()
                + " refuses such addresses (mailqueue.account." + account.name() + ".smtputf8=refuse)";
        refuseSmtpUtf8("from", parsed.from(), reason, errors);
        refuseSmtpUtf8("replyTo", parsed.replyTo(), reason, errors);
        for (String field : List.of("to", "cc", "bcc")) {
            List<Mailbox> list = field.equals("to") ? parsed.to() : field.equals("cc") ? parsed.cc() : parsed.bcc();
            for (int i = 0; i < list.size(); i++) {
                refuseSmtpUtf8(field + "[" + i + "]", list.get(i), reason, errors);
            }
        }
    }

    /** @param mailbox an address of the request, or null when it has none there or it is no mailbox */
    private static void refuseSmtpUtf8(String field, Mailbox mailbox, String reason, List<FieldError> errors) {
        if (mailbox != null && mailbox.needsSmtpUtf8() && noError(errors, field)) {
            errors.add(new FieldError(field, reason));
        }
    }

    /** The sender's name is given once: in {@code from} ({@code Name <address>}) or in {@code fromName}. */
    private static void checkSenderName(MailRequest request, Mailbox from, List<FieldError> errors) {
        if (from == null || request.getFromName() == null || request.getFromName().isBlank()
                || !noError(errors, "from")) {
            return;
        }
        String name = from.name();
        if (name != null && !name.equals(request.getFromName())) {
            errors.add(new FieldError("fromName", "differs from the name given in from: give the sender's name once"));
        }
    }

    /**
     * One-click unsubscribe needs the server's settings, one link per recipient (so one recipient, or a
     * copy per recipient), and the two header fields to itself.
     */
    private void checkUnsubscribe(MailRequest request, Addresses parsed, List<FieldError> errors) {
        if (!unsubscribeLinks.enabled()) {
            errors.add(new FieldError("unsubscribeList", "one-click unsubscribe is not configured on this server ("
                    + UnsubscribeLinks.URL + ", " + UnsubscribeLinks.SECRET + ")"));
            return;
        }
        if (parsed.distinctRecipients() > 1 && !request.isPerRecipient()) {
            errors.add(new FieldError("unsubscribeList", "needs exactly one recipient, or perRecipient: true:"
                    + " each recipient gets an unsubscribe link of their own"));
        }
        if (request.getHeaders() != null) {
            for (String name : request.getHeaders().keySet()) {
                if (name != null && (name.equalsIgnoreCase("List-Unsubscribe") || name.equalsIgnoreCase("List-Unsubscribe-Post"))) {
                    errors.add(new FieldError("headers." + name, "is written by the queue when unsubscribeList is set"));
                }
            }
        }
    }

    private static boolean noError(List<FieldError> errors, String field) {
        return errors.stream().noneMatch(e -> e.getField().equals(field));
    }

    /**
     * @param message a parsed raw message
     * @param mayUse  whether the sender may send as an address of a domain, given in lower case
     * @throws InvalidMailException naming each header field that {@link HeaderPolicy#checkRaw} refuses, as
     *                              {@code message.<Name>}
     */
    public void checkRaw(RawMessage message, java.util.function.Predicate<String> mayUse) throws InvalidMailException {
        List<FieldError> errors = headers.checkRaw(message, mayUse);
        if (!errors.isEmpty()) {
            throw new InvalidMailException(errors);
        }
    }

    /**
     * @param requests the mails of a bulk enqueue, may be null
     * @throws InvalidMailException when the list is null, empty or longer than
     *                              {@link MailLimits#BATCH}, or any mail breaks a rule; fields are
     *                              prefixed with the mail's index: {@code [3].to[0]}
     * @return the requests with their addresses parsed, in order
     */
    public List<ParsedRequest> checkAll(List<MailRequest> requests) throws InvalidMailException {
        if (requests == null || requests.isEmpty()) {
            throw new InvalidMailException(List.of(new FieldError("", "at least one mail is required")));
        }
        if (requests.size() > MailLimits.BATCH) {
            throw new InvalidMailException(List.of(new FieldError("",
                    "at most " + MailLimits.BATCH + " mails per batch, got " + requests.size())));
        }
        List<FieldError> errors = new ArrayList<>();
        List<ParsedRequest> parsed = new ArrayList<>(requests.size());
        for (int i = 0; i < requests.size(); i++) {
            try {
                parsed.add(check(requests.get(i)));
            } catch (InvalidMailException e) {
                String prefix = "[" + i + "]";
                e.getErrors().forEach(error -> errors.add(new FieldError(
                        error.getField().isEmpty() ? prefix : prefix + "." + error.getField(), error.getMessage())));
            }
        }
        if (!errors.isEmpty()) {
            throw new InvalidMailException(errors);
        }
        return parsed;
    }

    /**
     * @param path a Bean Validation property path
     * @return the path as the JSON names it: {@code to[1]} rather than {@code to[1].<list element>}
     */
    static String fieldName(Path path) {
        StringBuilder name = new StringBuilder();
        for (Path.Node node : path) {
            if (node.isInIterable()) {
                name.append('[').append(node.getIndex() != null ? node.getIndex() : node.getKey()).append(']');
            }
            if (node.getKind() == ElementKind.PROPERTY && node.getName() != null) {
                if (!name.isEmpty()) {
                    name.append('.');
                }
                name.append(node.getName());
            }
        }
        return name.toString();
    }
}
