package dev.mailqueue.mail.boundary;

import dev.mailqueue.server.control.ServerInstance;
import dev.mailqueue.queue.control.MailLifecycle;
import dev.mailqueue.api.Roles;
import dev.mailqueue.api.EnqueueReceipt;
import dev.mailqueue.api.FieldError;
import dev.mailqueue.api.IdempotencyConflictException;
import dev.mailqueue.api.IdempotencyKeyReusedException;
import dev.mailqueue.api.InvalidMailException;
import dev.mailqueue.api.MailNotFoundException;
import dev.mailqueue.api.MailQueueRemote;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.api.RawMail;
import dev.mailqueue.api.MailStateException;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.api.MailView;
import dev.mailqueue.api.SenderNotAllowedException;
import dev.mailqueue.mail.control.IdempotencyKeys;
import dev.mailqueue.mail.control.MailFactory;
import dev.mailqueue.mail.control.ParsedRequest;
import dev.mailqueue.mail.control.RawEnvelope;
import dev.mailqueue.mail.control.RawMessage;
import dev.mailqueue.mail.control.MailRequestValidator;
import dev.mailqueue.mail.control.MailViews;
import dev.mailqueue.mail.control.MailsEnqueued;
import dev.mailqueue.mail.control.RequestFingerprint;
import dev.mailqueue.mail.control.RequestSizeBudget;
import dev.mailqueue.mail.control.SenderPolicy;
import dev.mailqueue.queue.control.Enqueued;
import dev.mailqueue.queue.control.MailGroup;
import dev.mailqueue.queue.control.EnqueueStore;
import dev.mailqueue.queue.control.NewMail;
import dev.mailqueue.queue.control.OperatorStore;
import dev.mailqueue.queue.control.StoreException;
import dev.mailqueue.mime.control.HeaderLimits;
import dev.mailqueue.settings.control.Settings;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.annotation.security.DeclareRoles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ejb.SessionContext;
import jakarta.ejb.Stateless;
import jakarta.enterprise.event.Event;
import jakarta.inject.Inject;

import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The queue's facade: enqueue, look up and cancel mails. Every method joins the caller's JTA
 * transaction (REQUIRED), so a mail enqueued in a transaction that rolls back is never sent; once the
 * transaction commits, this server's dispatcher is woken ({@link MailsEnqueued}).
 *
 * <p>Callers need the role {@code mail-sender} or {@code mail-admin} (else {@code EJBAccessException}).
 * A sender may enqueue only from the From addresses its allow-list names ({@link SenderPolicy}), and
 * sees and cancels only the mails it enqueued: another user's mail is "not found" to it. The user is
 * recorded with every mail.
 *
 * <p>An enqueue is first measured against {@code mailqueue.http.max-request-bytes}, as the JSON the REST
 * API would have read ({@link RequestSizeBudget}), so a remote caller cannot queue more in one call than
 * an HTTP client can; then validated.
 */
@Stateless
@DeclareRoles({Roles.SENDER, Roles.ADMIN})
@RolesAllowed({Roles.SENDER, Roles.ADMIN})
public class Mails implements MailQueueLocal, MailQueueRemote {

    @Inject
    dev.mailqueue.queue.control.EventStore events;

    @Inject
    EnqueueStore store;

    @Inject
    OperatorStore operations;

    @Inject
    MailViews views;

    @Inject
    MailRequestValidator validator;

    @Inject
    RequestSizeBudget budget; // what the REST API allows a request body, for every caller

    @Inject
    MailFactory factory;

    @Inject
    dev.mailqueue.template.control.TemplateRendering templates;

    @Inject
    SenderPolicy senders;

    @Inject
    Event<MailsEnqueued> enqueued;

    @Resource
    SessionContext context;

    @Inject
    ServerInstance server;

    /** The caps on a raw message's header section ({@link HeaderLimits}), read once per instance. */
    private HeaderLimits rawLimits;

    @PostConstruct
    void readLimits() {
        rawLimits = HeaderLimits.read(Settings.fromConfig(Mails.class));
    }

    @Override
    public EnqueueReceipt enqueue(MailRequest request) throws InvalidMailException, SenderNotAllowedException {
        budget.check(request);
        checkTemplates(java.util.Collections.singletonList(request), false);
        ParsedRequest mail = validator.check(templates.render(request));
        String caller = checkSender(mail);
        return queue(List.of(factory.create(mail, Instant.now(), caller, null, null))).get(0);
    }

    @Override
    public EnqueueReceipt enqueue(MailRequest request, String idempotencyKey) throws InvalidMailException,
            SenderNotAllowedException, IdempotencyConflictException, IdempotencyKeyReusedException {
        budget.check(request);
        checkTemplates(java.util.Collections.singletonList(request), false);
        ParsedRequest mail = validator.check(templates.render(request));
        String caller = checkSender(mail);
        // The request as the caller sent it (its template and variables): a retry after the template was
        // replaced is the same request, not a reuse of the key.
        return once(caller, idempotencyKey, () -> RequestFingerprint.of(request),
                (scoped, fingerprint) -> factory.create(mail, Instant.now(), caller, scoped, fingerprint));
    }

    @Override
    public EnqueueReceipt enqueueRaw(RawMail mail, String idempotencyKey) throws InvalidMailException,
            SenderNotAllowedException, IdempotencyConflictException, IdempotencyKeyReusedException {
        if (mail == null || mail.getMessage() == null) {
            throw new InvalidMailException(List.of(new FieldError("message", "is required: an RFC 5322 message")));
        }
        budget.checkRaw(mail.getMessage().length);
        RawMessage message = RawMessage.parse(mail.getMessage(), rawLimits);
        String user = caller();
        boolean admin = isAdmin();
        validator.checkRaw(message, domain -> senders.mayUseDomain(user, admin, domain));
        RawEnvelope envelope = RawEnvelope.of(mail, message);
        ParsedRequest checked;
        try {
            checked = validator.check(envelope.request());
        } catch (InvalidMailException e) {
            throw envelope.renamed(e);
        }
        if (mail.getUnsubscribeList() != null && (message.has("List-Unsubscribe") || message.has("List-Unsubscribe-Post"))) {
            throw new InvalidMailException(List.of(new FieldError("message.List-Unsubscribe",
                    "is written by the queue when unsubscribeList is set: leave it out of the message")));
        }
        String caller = checkRawSender(envelope, checked, message);
        return once(caller, idempotencyKey, () -> RequestFingerprint.of(mail, message.traceEnd()), (scoped, fingerprint) -> {
            Optional<String> own = message.messageId();
            if (own.isPresent() && store.findByMessageId(own.get()).isPresent()) {
                throw new InvalidMailException(List.of(new FieldError("message.Message-ID", "is already the"
                        + " Message-ID of a mail in the queue: a Message-ID names one message (RFC 5322 3.6.4)")));
            }
            return factory.createRaw(envelope.stored(message, checked), message, Instant.now(), caller, scoped, fingerprint);
        });
    }

    /** Makes the mails of one request, given its scoped idempotency key and fingerprint (both null without a key). */
    @FunctionalInterface
    private interface Creation {
        MailGroup create(String scopedKey, String fingerprint) throws InvalidMailException;
    }

    /**
     * Queues what {@code creation} makes, at most once per idempotency key and caller.
     *
     * @return the new mail's receipt, or the earlier enqueue's, marked duplicate
     */
    private EnqueueReceipt once(String caller, String idempotencyKey, java.util.function.Supplier<String> fingerprinter,
                                Creation creation) throws InvalidMailException, IdempotencyConflictException,
            IdempotencyKeyReusedException {
        if (idempotencyKey == null) {
            return queue(List.of(creation.create(null, null))).get(0);
        }
        IdempotencyKeys.check(idempotencyKey);
        String scoped = IdempotencyKeys.scoped(caller, idempotencyKey); // one user's key never finds another's mail
        String fingerprint = fingerprinter.get();
        Optional<EnqueueStore.EarlierEnqueue> earlier = store.findByIdempotencyKey(scoped);
        if (earlier.isPresent()) {
            EnqueueStore.EarlierEnqueue first = earlier.get();
            if (first.fingerprint() != null && !first.fingerprint().equals(fingerprint)) {
                throw new IdempotencyKeyReusedException(idempotencyKey, first.first().id());
            }
            EnqueueReceipt receipt = new EnqueueReceipt(first.first().id(), first.first().messageId(), first.status());
            receipt.setCopies(first.copies().stream()
                    .map(c -> new EnqueueReceipt(c.mail().id(), c.mail().messageId(), c.status())).toList());
            receipt.setDuplicate(true);
            return receipt;
        }
        try {
            return queue(List.of(creation.create(scoped, fingerprint))).get(0);
        } catch (StoreException e) {
            if (EnqueueStore.isUniqueViolation(e)) { // a racing duplicate committed first
                throw new IdempotencyConflictException(idempotencyKey);
            }
            throw e;
        }
    }

    /**
     * @return the caller, once it may send as the raw mail's envelope sender (with its account and list) and as
     *         every address of the message's From and Sender fields
     * @throws SenderNotAllowedException naming the first field it may not send as
     */
    private String checkRawSender(RawEnvelope envelope, ParsedRequest checked, RawMessage message)
            throws SenderNotAllowedException {
        String caller = caller();
        boolean admin = isAdmin();
        Optional<FieldError> refused = senders.check(caller, admin, checked, "from")
                .map(e -> new FieldError(envelope.rename(e.getField()), e.getMessage()));
        List<jakarta.mail.internet.InternetAddress> authors = new ArrayList<>(message.from());
        message.sender().ifPresent(authors::add);
        for (int i = 0; refused.isEmpty() && i < authors.size(); i++) {
            String field = i < message.from().size() ? "message.From" : "message.Sender";
            refused = senders.checkAuthor(caller, admin, authors.get(i).getAddress(), field);
        }
        if (refused.isPresent()) {
            throw new SenderNotAllowedException(caller, List.of(refused.get()));
        }
        return caller;
    }

    @Override
    public List<EnqueueReceipt> enqueueAll(List<MailRequest> given)
            throws InvalidMailException, SenderNotAllowedException {
        budget.checkAll(given);
        if (given != null && given.size() > dev.mailqueue.api.MailLimits.BATCH) {
            validator.checkAll(given); // refuses the size before any rendering
        }
        if (given != null) {
            checkTemplates(given, true);
        }
        List<ParsedRequest> requests = validator.checkAll(templates.renderAll(given));
        String caller = caller();
        boolean admin = isAdmin();
        List<FieldError> refused = new ArrayList<>();
        for (int i = 0; i < requests.size(); i++) {
            senders.check(caller, admin, requests.get(i), "[" + i + "].from").ifPresent(refused::add);
        }
        if (!refused.isEmpty()) {
            throw new SenderNotAllowedException(caller, refused);
        }
        Instant now = Instant.now();
        List<MailGroup> groups = new ArrayList<>(requests.size());
        for (ParsedRequest request : requests) {
            groups.add(factory.create(request, now, caller, null, null));
        }
        return queue(groups);
    }

    /** Stores the groups (one JDBC batch per table) and tells the dispatcher once they commit. */
    private List<EnqueueReceipt> queue(List<MailGroup> groups) {
        List<List<Enqueued>> stored = store.enqueue(groups, server.name());
        List<EnqueueReceipt> receipts = new ArrayList<>(groups.size());
        int rows = 0;
        Instant earliestDue = null;
        for (int g = 0; g < groups.size(); g++) {
            for (NewMail mail : groups.get(g).mails()) {
                earliestDue = earliestDue == null || mail.notBefore().isBefore(earliestDue) ? mail.notBefore() : earliestDue;
            }
            List<Enqueued> mails = stored.get(g);
            rows += mails.size();
            EnqueueReceipt receipt = receipt(mails.get(0));
            if (groups.get(g).copies()) {
                receipt.setCopies(mails.stream().map(Mails::receipt).toList());
            }
            receipts.add(receipt);
        }
        enqueued.fire(new MailsEnqueued(rows, earliestDue));
        return receipts;
    }

    private static EnqueueReceipt receipt(Enqueued mail) {
        EnqueueReceipt receipt = new EnqueueReceipt(mail.id(), mail.messageId(), mail.status());
        receipt.setSuppressed(mail.suppressed());
        return receipt;
    }

    /**
     * Refuses, before anything is rendered, a mail that names a template the caller may not use.
     *
     * @param indexed whether fields are named {@code [i].template} (a batch) or {@code template}
     * @throws SenderNotAllowedException naming each {@code template.name} refused
     */
    private void checkTemplates(List<MailRequest> requests, boolean indexed) throws SenderNotAllowedException {
        String caller = caller();
        boolean admin = isAdmin();
        List<FieldError> refused = new ArrayList<>();
        for (int i = 0; i < requests.size(); i++) {
            senders.checkTemplate(caller, admin, requests.get(i), indexed ? "[" + i + "].template" : "template")
                    .ifPresent(refused::add);
        }
        if (!refused.isEmpty()) {
            throw new SenderNotAllowedException(caller, refused);
        }
    }

    /**
     * @return the caller, once its From address passed the allow-list
     * @throws SenderNotAllowedException when the caller may not send as the request's From
     */
    private String checkSender(ParsedRequest request) throws SenderNotAllowedException {
        String caller = caller();
        Optional<FieldError> refused = senders.check(caller, isAdmin(), request, "from");
        if (refused.isPresent()) {
            throw new SenderNotAllowedException(caller, List.of(refused.get()));
        }
        return caller;
    }

    @Override
    public MailView find(long id) throws MailNotFoundException {
        return views.full(id).filter(this::visible).orElseThrow(() -> new MailNotFoundException(id));
    }

    @Override
    public MailView cancel(long id) throws MailNotFoundException, MailStateException {
        MailView mail = find(id);
        if (operations.cancel(List.of(id), MailLifecycle.CANCELLABLE_BY_SENDER, server.name(), "sender:" + caller()) == 0) {
            throw new MailStateException(id, find(id).getStatus(), "be cancelled");
        }
        return views.full(id).orElse(mail);
    }

    @Override
    public List<dev.mailqueue.api.EventRecord> events(long id) throws MailNotFoundException {
        find(id);
        return events.eventsOf(id);
    }

    /** An administrator sees every mail, a sender only its own: others' are "not found", not "forbidden". */
    private boolean visible(MailView mail) {
        return isAdmin() || Objects.equals(mail.getEnqueuedBy(), caller());
    }

    private String caller() {
        return context.getCallerPrincipal().getName();
    }

    private boolean isAdmin() {
        return context.isCallerInRole(Roles.ADMIN);
    }
}
