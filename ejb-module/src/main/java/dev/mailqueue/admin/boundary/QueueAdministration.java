package dev.mailqueue.admin.boundary;

import dev.mailqueue.api.DkimKeyView;
import dev.mailqueue.dkim.control.DkimKeys;
import dev.mailqueue.server.control.ServerInstance;
import dev.mailqueue.queue.control.MailLifecycle;
import dev.mailqueue.account.control.Accounts;
import dev.mailqueue.admin.control.BulkActions;
import dev.mailqueue.admin.control.FilterRules;
import dev.mailqueue.admin.control.MailSearch;
import dev.mailqueue.admin.control.StatisticsReader;
import dev.mailqueue.api.AttemptView;
import dev.mailqueue.api.FieldError;
import dev.mailqueue.api.InvalidFilterException;
import dev.mailqueue.api.MailAdminRemote;
import dev.mailqueue.api.MailDetail;
import dev.mailqueue.api.MailFilter;
import dev.mailqueue.api.MailLimits;
import dev.mailqueue.api.MailNotFoundException;
import dev.mailqueue.api.MailPage;
import dev.mailqueue.api.MailStateException;
import dev.mailqueue.api.MailView;
import dev.mailqueue.api.QueueStatistics;
import dev.mailqueue.api.SuppressionView;
import dev.mailqueue.api.validation.MailAddressValidator;
import dev.mailqueue.log.control.LogText;
import dev.mailqueue.api.Roles;
import dev.mailqueue.mail.control.MailLifetime;
import dev.mailqueue.mail.control.MailViews;
import dev.mailqueue.queue.entity.MailMessage;
import dev.mailqueue.queue.entity.MailState;
import dev.mailqueue.queue.entity.Utc;
import dev.mailqueue.queue.control.DispatchPauseStore;
import dev.mailqueue.queue.control.Pauses;
import dev.mailqueue.api.EventRecord;
import dev.mailqueue.queue.control.OperatorStore;
import dev.mailqueue.queue.control.SeriesStore;
import dev.mailqueue.queue.control.Suppressed;
import dev.mailqueue.queue.control.SuppressionStore;
import jakarta.annotation.Resource;
import jakarta.annotation.security.DeclareRoles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ejb.SessionContext;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.logging.Logger;

/**
 * The operator's facade ({@link dev.mailqueue.api.MailAdmin}): search, requeue, cancel, delete, attempt
 * logs and statistics. Only {@code mail-admin} may call it; {@code mail-viewer} may call what only reads. A filter's criteria are checked first
 * ({@link FilterRules}: a blank or unstorable criterion is an {@link InvalidFilterException} naming it).
 * Actions on one mail join the caller's transaction (REQUIRED); bulk actions run in chunks of 500 mails,
 * each committed on its own ({@link BulkActions}), and are logged with the operator's name and the rows
 * changed.
 */
@Stateless
@DeclareRoles({Roles.SENDER, Roles.ADMIN, Roles.VIEWER})
@RolesAllowed(Roles.ADMIN)
public class QueueAdministration implements MailAdminLocal, MailAdminRemote {

    /** A list name: the scope of a suppression. */
    private static final java.util.regex.Pattern LIST = java.util.regex.Pattern.compile(MailLimits.LIST_NAME);

    private static final Logger LOG = Logger.getLogger(QueueAdministration.class.getName());

    @PersistenceContext(unitName = "mailqueue")
    EntityManager em;

    @Inject
    BulkActions actions;

    @Inject
    OperatorStore store;

    @Inject
    dev.mailqueue.queue.control.CampaignStore campaigns;

    @Inject
    dev.mailqueue.queue.control.EventStore events;

    @Inject
    dev.mailqueue.webhook.control.WebhookSettings webhooks;

    @Inject
    dev.mailqueue.webhook.control.WebhookEndpointStore endpoints;

    @Inject
    SuppressionStore suppressions;

    @Inject
    DispatchPauseStore pauses;

    @Inject
    SeriesStore series;

    @Inject
    Accounts accounts;

    @Inject
    MailLifetime lifetime;

    @Inject
    MailViews views;

    @Inject
    dev.mailqueue.settings.control.QueueSettings settings;

    @Resource
    SessionContext context;

    @Inject
    ServerInstance server;

    @Inject
    DkimKeys dkim;

    /** @return who acts, as the mail's log names them */
    private String actor() {
        return "operator:" + context.getCallerPrincipal().getName();
    }

    @Override
    @RolesAllowed({Roles.ADMIN, Roles.VIEWER})
    public MailPage search(MailFilter filter, int page, int size, String sort) throws InvalidFilterException {
        return MailSearch.page(em, filter == null ? new MailFilter() : filter, page, size, sort,
                settings.searchTimeoutMillis());
    }

    @Override
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED) // each chunk commits on its own
    public int requeue(MailFilter filter) throws InvalidFilterException {
        return logged("requeued", bulk(BulkActions.Action.REQUEUE, filter));
    }

    @Override
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public int cancel(MailFilter filter) throws InvalidFilterException {
        return logged("cancelled", bulk(BulkActions.Action.CANCEL, filter));
    }

    @Override
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public int delete(MailFilter filter) throws InvalidFilterException {
        return logged("deleted", bulk(BulkActions.Action.DELETE, filter));
    }

    private int bulk(BulkActions.Action action, MailFilter filter) throws InvalidFilterException {
        FilterRules.check(filter);
        BulkActions.requireCriteria(filter);
        Instant now = Instant.now();
        int changed = 0;
        for (BulkActions.Chunk chunk = actions.next(action, filter, 0, now, actor()); chunk.lastId() >= 0;
             chunk = actions.next(action, filter, chunk.lastId(), now, actor())) {
            changed += chunk.changed();
        }
        return changed;
    }

    @Override
    public MailView requeue(long id) throws MailNotFoundException, MailStateException {
        if (store.requeue(List.of(id), Instant.now(), lifetime.attempts(), lifetime.expiry(null, Instant.now()), server.name(),
                actor()) == 1) {
            return find(id);
        }
        em.clear();
        MailMessage mail = em.find(MailMessage.class, id);
        if (mail != null && mail.getContentRemovedAt() != null) {
            throw refusal(id, "be requeued: the retention job removed its content at "
                    + Utc.toInstant(mail.getContentRemovedAt()) + " (mailqueue.retention.content-days)");
        }
        throw refusal(id, "be requeued (only FAILED, EXPIRED, HELD or CANCELLED mail can)");
    }

    @Override
    public MailView cancel(long id) throws MailNotFoundException, MailStateException {
        if (store.cancel(List.of(id), MailLifecycle.CANCELLABLE, server.name(), actor()) == 1) {
            return find(id);
        }
        throw refusal(id, "be cancelled (only QUEUED or HELD mail can)");
    }

    @Override
    public void delete(long id) throws MailNotFoundException, MailStateException {
        if (store.delete(List.of(id)) != 1) {
            throw refusal(id, "be deleted while it is being sent");
        }
    }

    @Override
    @RolesAllowed({Roles.ADMIN, Roles.VIEWER})
    public List<AttemptView> attempts(long id) throws MailNotFoundException {
        return find(id).getAttempts();
    }

    @Override
    @RolesAllowed({Roles.ADMIN, Roles.VIEWER})
    public MailDetail detail(long id) throws MailNotFoundException {
        return views.detail(id).orElseThrow(() -> new MailNotFoundException(id));
    }

    @Override
    @RolesAllowed({Roles.ADMIN, Roles.VIEWER})
    public Optional<AttachmentFile> attachment(long id, int index) throws MailNotFoundException {
        return views.attachment(id, index).map(a -> new AttachmentFile(a.getFilename(), a.getContentType(), a.getContent()));
    }

    @Override
    @RolesAllowed({Roles.ADMIN, Roles.VIEWER})
    public List<EventRecord> events(long id) throws MailNotFoundException {
        if (em.find(MailMessage.class, id) == null) {
            throw new MailNotFoundException(id);
        }
        return events.eventsOf(id);
    }

    @Override
    @RolesAllowed({Roles.ADMIN, Roles.VIEWER})
    public List<DkimKeyView> dkimKeys() {
        return dkim.all().stream().map(e -> new DkimKeyView(e.name(), e.domain(), e.selector(),
                e.dnsName(), e.key() == null ? null : e.key().dnsRecord(),
                e.key() == null ? 0 : e.key().bits(), e.problem())).toList();
    }

    @Override
    @RolesAllowed({Roles.ADMIN, Roles.VIEWER})
    public Series series(String range, String account) throws InvalidFilterException {
        List<FieldError> errors = new ArrayList<>();
        Optional<SeriesStore.Range> r = range == null ? Optional.of(SeriesStore.Range.HOUR) : SeriesStore.Range.of(range);
        if (r.isEmpty()) {
            errors.add(new FieldError("range", "must be hour or week"));
        }
        if (account != null && !account.matches(MailLimits.ACCOUNT_NAME)) {
            errors.add(new FieldError("account", "is not an SMTP account name (A-Z a-z 0-9 _ -, 1 to 64 characters)"));
        }
        if (!errors.isEmpty()) {
            throw new InvalidFilterException(errors);
        }
        SeriesStore.Range chosen = r.get();
        return new Series(chosen.wireName(), chosen.bucketSeconds(), account, series.read(chosen, account,
                account != null && account.equals(accounts.defaultAccount().name()), Instant.now()));
    }

    @Override
    @RolesAllowed({Roles.ADMIN, Roles.VIEWER})
    public QueueStatistics statistics() {
        QueueStatistics stats = StatisticsReader.read(em, Utc.now());
        stats.setPausedCampaigns(campaigns.paused());
        pauses(stats);
        List<String> disabled = new ArrayList<>();
        long pending = 0;
        for (var endpoint : webhooks.endpoints()) {
            var state = endpoints.state(endpoint.name());
            pending += state.pending();
            if (state.disabledAt() != null) {
                disabled.add(endpoint.name());
            }
        }
        stats.setWebhookEndpointsDisabled(disabled);
        stats.setWebhookDeliveriesPending(pending);
        return stats;
    }

    /** Sets whether the queue is paused, the paused accounts, and each account's {@code paused}. */
    private void pauses(QueueStatistics stats) {
        Set<String> accounts = new TreeSet<>();
        for (DispatchPauseStore.Pause pause : pauses.list()) {
            if (Pauses.QUEUE.equals(pause.scope())) {
                stats.setDispatchPaused(true);
            }
            pause.account().ifPresent(accounts::add);
        }
        stats.setPausedAccounts(new ArrayList<>(accounts));
        Set<String> listed = new HashSet<>();
        for (QueueStatistics.Account account : stats.getAccounts()) {
            account.setPaused(accounts.contains(account.getAccount()));
            listed.add(account.getAccount());
        }
        for (String name : accounts) {
            if (!listed.contains(name)) { // a paused account with nothing to count: listed all the same
                QueueStatistics.Account account = new QueueStatistics.Account(name, 0, 0, 0);
                account.setPaused(true);
                stats.getAccounts().add(account);
            }
        }
    }

    private MailView find(long id) throws MailNotFoundException {
        return views.full(id).orElseThrow(() -> new MailNotFoundException(id));
    }

    /**
     * @return why an action on one mail changed nothing: its status
     * @throws MailNotFoundException when there is no such mail
     */
    private MailStateException refusal(long id, String action) throws MailNotFoundException {
        em.clear(); // the store changed rows in SQL: read the state as it is now
        MailState state = em.find(MailState.class, id);
        if (state == null) {
            throw new MailNotFoundException(id);
        }
        return new MailStateException(id, state.getStatus(), action);
    }

    private int logged(String what, int rows) {
        LOG.info(() -> LogText.escape(context.getCallerPrincipal().getName()) + " " + what + " " + rows + " mail(s)");
        return rows;
    }


    @Override
    @RolesAllowed({Roles.ADMIN, Roles.VIEWER})
    public List<SuppressionView> suppressions(String addressContains, int page, int size) throws InvalidFilterException {
        List<FieldError> errors = new ArrayList<>();
        if (page < 0 || page > 1_000_000) {
            errors.add(new FieldError("page", "must be 0 to 1000000"));
        }
        if (size < 1 || size > MAX_PAGE_SIZE) {
            errors.add(new FieldError("size", "must be 1 to " + MAX_PAGE_SIZE));
        }
        if (!errors.isEmpty()) {
            throw new InvalidFilterException(errors);
        }
        return suppressions.list(addressContains, null, page * size, size).stream().map(QueueAdministration::view).toList();
    }

    @Override
    @RolesAllowed({Roles.ADMIN, Roles.VIEWER})
    public SuppressionView suppression(String address, String list) throws InvalidFilterException {
        checkSuppression(address, list, null);
        SuppressionStore.Entry entry = suppressions.suppressing(address, list);
        return entry == null ? null : view(entry);
    }

    @Override
    public SuppressionView suppress(String address, String list, String note) throws InvalidFilterException {
        checkSuppression(address, list, note);
        String scope = list == null ? Suppressed.ALL : list;
        if (suppressions.add(address, scope, SuppressionStore.Reason.MANUAL, note, Instant.now())) {
            LOG.info(() -> "suppression of " + LogText.escape(address) + " (" + scope + ") added by "
                    + context.getCallerPrincipal().getName());
        }
        return view(suppressions.suppressing(address, list == null ? null : list));
    }

    @Override
    public boolean unsuppress(String address, String list) throws InvalidFilterException {
        checkSuppression(address, list, null);
        boolean removed = suppressions.remove(address, list == null ? Suppressed.ALL : list);
        if (removed) {
            LOG.info(() -> "suppression of " + LogText.escape(address) + " (" + (list == null ? "*" : list)
                    + ") lifted by " + context.getCallerPrincipal().getName());
        }
        return removed;
    }

    private static void checkSuppression(String address, String list, String note) throws InvalidFilterException {
        List<FieldError> errors = new ArrayList<>();
        if (address == null || MailAddressValidator.problemWith(address.strip()) != null) {
            errors.add(new FieldError("address", "must be a bare address such as user@example.com, at most 254"
                    + " characters (RFC 5321 §4.5.3.1.3)"));
        }
        if (list != null && !LIST.matcher(list).matches()) {
            errors.add(new FieldError("list", "must be 1 to 64 characters of A-Z a-z 0-9 . _ -"));
        }
        if (note != null && note.length() > 1000) {
            errors.add(new FieldError("note", "must be at most 1000 characters"));
        }
        if (!errors.isEmpty()) {
            throw new InvalidFilterException(errors);
        }
    }

    private static SuppressionView view(SuppressionStore.Entry entry) {
        SuppressionView view = new SuppressionView();
        view.setAddress(entry.address());
        view.setList(Suppressed.ALL.equals(entry.scope()) ? null : entry.scope());
        view.setReason(entry.reason().name());
        view.setMailId(entry.mailId());
        view.setDetail(entry.detail());
        view.setCreatedAt(entry.createdAt().toString());
        return view;
    }
}
