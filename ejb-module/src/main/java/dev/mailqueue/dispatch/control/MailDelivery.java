package dev.mailqueue.dispatch.control;

import dev.mailqueue.account.control.Account;
import dev.mailqueue.account.control.AccountHealth;
import dev.mailqueue.account.control.AccountThrottle;
import dev.mailqueue.account.control.Accounts;
import dev.mailqueue.account.control.SendPermit;
import dev.mailqueue.log.control.LogText;
import dev.mailqueue.queue.entity.RecipientStatus;
import dev.mailqueue.queue.control.AttemptResult;
import dev.mailqueue.queue.control.Change;
import dev.mailqueue.queue.control.Lease;
import dev.mailqueue.queue.control.ClaimedMail;
import dev.mailqueue.queue.control.RecipientResult;
import dev.mailqueue.queue.control.StoreException;
import dev.mailqueue.queue.control.Verdict;
import dev.mailqueue.settings.control.DeliveryMode;
import jakarta.mail.Address;
import jakarta.mail.MessagingException;
import jakarta.mail.SendFailedException;
import jakarta.mail.Session;
import jakarta.mail.internet.InternetAddress;

import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.LongFunction;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Sends one claimed mail and says what became of it, as the {@link Change} to record: an attempt, or
 * the mail handed back unsent. In order:
 * <ol>
 *   <li>a mail past its expires-at is EXPIRED, not sent;</li>
 *   <li>it is composed ({@link MimeMessageFactory}) for the recipients still open (an earlier attempt
 *       may have settled some); a mail that cannot be composed fails for good;</li>
 *   <li>its account, then the accounts of its failover list: an account that is down
 *       ({@link AccountHealth}) is skipped; a rate limit that refuses hands the mail back, due when a
 *       slot should be free ({@link AccountThrottle}); a connection that cannot be opened marks the
 *       account down and the next account is tried;</li>
 *   <li>on a connection whose server does not offer SMTPUTF8, recipients with a non-ASCII local part are
 *       refused for good and the others sent to ({@link SmtpUtf8Gate}, RFC 6531 §3.2);</li>
 *   <li>on an open connection, the claimer hears that the mail is about to be sent ({@link Marks}: it
 *       submits the changes that wait, the outcome of its mail before) and the mail is sent; the transport
 *       ends DATA only once the claimer's gate opens ({@link GatedMessage}, {@link SendGate});</li>
 *   <li>the reply decides: sent, refused per recipient ({@link PartialDelivery}), transient or permanent
 *       ({@link FailureClass}), or in doubt when the end of DATA went out and no answer came;</li>
 *   <li>when no account could be reached, the mail goes back to the queue with its attempts untouched,
 *       due when the first account's cool-down ends.</li>
 * </ol>
 * One per claimer: not thread safe. Its connections are borrowed for the claimer's lifetime.
 */
final class MailDelivery implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(MailDelivery.class.getName());

    /** How long a mail waits when the rate state could not be read (lock timeout, first-use race). */
    static final Duration RATE_STATE_RETRY = Duration.ofSeconds(1);

    /** Hears that a mail is about to be sent, and says what the end of its DATA waits for. */
    @FunctionalInterface
    interface Marks {
        /**
         * @param mailId the mail about to be sent
         * @param at     now
         * @return the gate its final "." waits for
         */
        SendGate sendStarted(long mailId, Instant at);
    }

    /**
     * The claimer's gate did not open in time (the outcome before could not be committed: the database is
     * away): nothing was delivered, and the claimer should send the same mail again once the journal writes again.
     */
    static final class NotRecorded extends Exception {
        private static final long serialVersionUID = 1L;

        NotRecorded(Throwable cause) {
            super(cause);
        }
    }

    /** Writes the one-click unsubscribe fields of a mail of a list when it is sent. */
    @FunctionalInterface
    interface ListFields {
        /**
         * @param list      the mail's list
         * @param recipient its one recipient
         * @param at        now: the link expires a lifetime after
         * @return the fields; empty when one-click unsubscribe is not (any more) configured
         */
        List<dev.mailqueue.queue.control.NewMail.Header> of(String list, String recipient, Instant at);
    }

    /** Hears how long each SMTP send took and whether the server accepted it (the metrics). */
    @FunctionalInterface
    interface SendTimer {
        void sent(Duration elapsed, boolean accepted);
    }

    /** What the delivery needs from its claimer and the server. */
    record Parts(Lease lease, String server, Accounts accounts, AccountHealth health, AccountThrottle throttle,
                 SmtpConnections connections, Session composer, LongFunction<ClaimedMail.Body> bodies,
                 MimeMessageFactory.AttachmentReader attachments, SendTimer metrics, long markWaitMillis,
                 DeliveryMode mode, String redirectTo, int maxAttempts, ListFields listFields, DkimSigning signing) {

        /** Parts without one-click unsubscribe and DKIM signing. */
        Parts(Lease lease, String server, Accounts accounts, AccountHealth health, AccountThrottle throttle,
              SmtpConnections connections, Session composer, LongFunction<ClaimedMail.Body> bodies,
              MimeMessageFactory.AttachmentReader attachments, SendTimer metrics, long markWaitMillis,
              DeliveryMode mode, String redirectTo, int maxAttempts) {
            this(lease, server, accounts, health, throttle, connections, composer, bodies, attachments, metrics,
                    markWaitMillis, mode, redirectTo, maxAttempts, (list, recipient, at) -> List.of(), DkimSigning.NONE);
        }

        /** Parts of a LIVE server, whose mails get 100 attempts. */
        Parts(Lease lease, String server, Accounts accounts, AccountHealth health, AccountThrottle throttle,
              SmtpConnections connections, Session composer, LongFunction<ClaimedMail.Body> bodies,
              MimeMessageFactory.AttachmentReader attachments, SendTimer metrics, long markWaitMillis) {
            this(lease, server, accounts, health, throttle, connections, composer, bodies, attachments, metrics,
                    markWaitMillis, DeliveryMode.LIVE, null, 100);
        }
    }

    /** The header field that names a redirected mail's recipients. */
    static final String ORIGINAL_TO = "X-Original-To";

    private final Parts parts;
    private final Map<String, SmtpConnection> borrowed = new HashMap<>();
    /**
     * Per account refused lately by its rate limit: the refusal and how many mails it has deferred so far,
     * kept until the first slot is expected free, so that a backlog is spread over the minutes ahead in
     * turn instead of all falling due at the same instant, and the rate state is not asked once per mail.
     */
    private final Map<String, Refusal> refused = new HashMap<>();

    private static final class Refusal {
        final SendPermit permit;
        int deferred;

        Refusal(SendPermit permit) {
            this.permit = permit;
        }
    }

    MailDelivery(Parts parts) {
        this.parts = parts;
    }

    /**
     * @param mail  a mail the claimer holds
     * @param marks hears that the mail is about to be sent, and gives the gate the end of its DATA waits at
     * @return the change to record for it
     * @throws NotRecorded when the gate did not open in time, or the database was away when
     *                     its bodies were read; nothing was delivered
     */
    Change deliver(ClaimedMail mail, Marks marks) throws NotRecorded {
        Instant started = Instant.now();
        if (mail.expiresAt() != null && !started.isBefore(mail.expiresAt())) {
            return attempt(mail, started, Verdict.EXPIRED, SmtpReply.NONE,
                    "expired at " + mail.expiresAt() + " before it could be sent", List.of(), null);
        }
        ClaimedMail.Body body;
        try {
            body = mail.body() != null ? mail.body() : parts.bodies().apply(mail.id());
        } catch (RuntimeException e) {
            if (StoreException.isConnectionFailure(e)) {
                throw new NotRecorded(e);
            }
            return attempt(mail, started, Verdict.TRANSIENT, SmtpReply.NONE,
                    "could not read the mail's bodies: " + describe(e), List.of(), null);
        }
        GatedMessage message;
        Address[] open;
        try {
            message = MimeMessageFactory.compose(parts.composer(), mail, body, parts.attachments(),
                    mail.unsubscribeList() == null ? List.of()
                            : parts.listFields().of(mail.unsubscribeList(), mail.firstRecipient(), started));
            open = Arrays.stream(message.getAllRecipients())
                    .filter(a -> !mail.settled().containsKey(key(a)))
                    .toArray(Address[]::new);
        } catch (MessagingException | RuntimeException e) {
            return attempt(mail, started, Verdict.PERMANENT, SmtpReply.NONE,
                    "cannot compose the message: " + describe(e), List.of(), null);
        }
        boolean anyAccepted = mail.settled().containsValue(RecipientStatus.SENT);
        if (open.length == 0) { // an earlier attempt settled them all
            return attempt(mail, started, anyAccepted ? Verdict.SENT : Verdict.PERMANENT, SmtpReply.NONE, null,
                    List.of(), null);
        }
        Simulation.Split simulation = Simulation.split(open, parts.mode(), mail.attemptsRemaining() >= parts.maxAttempts());
        List<RecipientResult> simulated = simulation.simulated();
        if (simulation.real().length == 0) {
            return simulated(mail, started, message, simulated, anyAccepted);
        }
        open = simulation.real();
        boolean redirecting = parts.mode() == DeliveryMode.REDIRECT;
        Address[] targets = open;
        if (redirecting) {
            try {
                message.setHeader(ORIGINAL_TO, InternetAddress.toString(open, ORIGINAL_TO.length() + 2));
                targets = new Address[]{new InternetAddress(parts.redirectTo())};
            } catch (MessagingException e) {
                return attempt(mail, started, Verdict.PERMANENT, SmtpReply.NONE,
                        "cannot redirect the message: " + describe(e), List.of(), null);
            }
        }
        try {
            message.signWith(parts.signing().keyFor(message));
        } catch (MessagingException e) {
            return attempt(mail, started, Verdict.PERMANENT, SmtpReply.NONE,
                    "cannot read the From field to choose a DKIM key: " + describe(e), List.of(), null);
        } catch (IllegalStateException e) { // its domain's key cannot be read: it waits, unsigned mail could be refused
            return attempt(mail, started, Verdict.TRANSIENT, SmtpReply.NONE, e.getMessage(), List.of(), null);
        }
        List<Account> profile;
        try {
            profile = parts.accounts().profile(mail.account());
        } catch (IllegalArgumentException e) {
            return attempt(mail, started, Verdict.TRANSIENT, SmtpReply.NONE, e.getMessage(), List.of(), mail.account());
        }
        Instant dueAgain = null;
        StringBuilder unreachable = new StringBuilder();
        for (Account account : profile) {
            Instant now = Instant.now();
            Instant coolingUntil = parts.health().refusedUntil(account.name(), now);
            if (coolingUntil != null) {
                dueAgain = earlier(dueAgain, coolingUntil);
                append(unreachable, account.name(), "unreachable, cooling down until " + coolingUntil);
                continue;
            }
            SendPermit permit = permit(account, now);
            if (permit == null) {
                return new Change.HandedBack(mail.id(), parts.lease().claimer(), now.plus(RATE_STATE_RETRY), null);
            }
            if (!permit.granted()) {
                Refusal refusal = refused.computeIfAbsent(account.name(), n -> new Refusal(permit));
                return new Change.HandedBack(mail.id(), parts.lease().claimer(), refusal.permit.retryAt(refusal.deferred++), null);
            }
            SmtpConnection connection = borrowed.computeIfAbsent(account.name(), n -> parts.connections().borrow(account));
            try {
                connection.open();
            } catch (SmtpUnreachableException e) {
                settle(permit, true);
                dueAgain = earlier(dueAgain, parts.health().unreachable(account.name(), describe(e), Instant.now()));
                append(unreachable, account.name(), describe(e));
                continue;
            }
            parts.health().reached(account.name());
            Address[] envelope = targets;
            List<RecipientResult> notSmtpUtf8 = List.of();
            SmtpUtf8Gate.Split utf8 = SmtpUtf8Gate.split(targets);
            boolean authorNeedsSmtpUtf8 = SmtpUtf8Gate.needsSmtpUtf8(mail.from()) || message.needsSmtpUtf8();
            if ((authorNeedsSmtpUtf8 || !utf8.refused().isEmpty()) && !connection.offersSmtpUtf8()) {
                if (authorNeedsSmtpUtf8) { // the From field, and MAIL FROM unless VERP or mail.smtp.from replace it
                    settle(permit, true);
                    return attempt(mail, started, Verdict.PERMANENT, SmtpReply.NONE, message.needsSmtpUtf8()
                                    ? SmtpUtf8Gate.HEADER_REASON : SmtpUtf8Gate.SENDER_REASON,
                            List.of(), account.name());
                }
                notSmtpUtf8 = utf8.refused();
                envelope = utf8.sendable();
                if (envelope.length == 0) {
                    settle(permit, true);
                    PartialDelivery.Split none = withSimulated(SmtpUtf8Gate.with(new PartialDelivery.Split(
                            anyAccepted ? Verdict.SENT : Verdict.PERMANENT, null, List.of()), notSmtpUtf8), simulated,
                            anyAccepted);
                    return attempt(mail, started, none.verdict(), SmtpReply.NONE, none.error(), none.recipients(),
                            account.name());
                }
                try {
                    MimeMessageFactory.downgrade(message);
                } catch (MessagingException e) {
                    settle(permit, true);
                    return attempt(mail, started, Verdict.PERMANENT, SmtpReply.NONE,
                            "cannot compose the message without SMTPUTF8: " + describe(e), List.of(), account.name());
                }
            }
            message.arm(marks.sendStarted(mail.id(), Instant.now()), parts.markWaitMillis());
            long sending = System.nanoTime();
            if (account.usesVerp() && !redirecting && envelope.length > 1) {
                Address[] each = envelope;
                try {
                    SeparateTransactions.Outcome outcome = SeparateTransactions.send(connection, message, each,
                            i -> parts.accounts().envelopeSender(account, mail.id(), position(mail, each[i])));
                    if (outcome.firstFailed() == null) {
                        settle(permit, false);
                        parts.metrics().sent(Duration.ofNanos(System.nanoTime() - sending), outcome.anySent());
                        slowDownOn(account, outcome.lastReply());
                        return separately(mail, started, account, outcome, notSmtpUtf8, simulated, anyAccepted);
                    }
                    settle(permit, false);
                    parts.metrics().sent(Duration.ofNanos(System.nanoTime() - sending), false);
                    return failure(mail, started, message, account, outcome.firstFailed(), anyAccepted, notSmtpUtf8,
                            simulated, open, false);
                } catch (SmtpUnreachableException e) {
                    settle(permit, true);
                    dueAgain = earlier(dueAgain, parts.health().unreachable(account.name(), describe(e), Instant.now()));
                    append(unreachable, account.name(), describe(e));
                    continue;
                } catch (MessagingException e) { // the first transaction's mark was not committed in time
                    settle(permit, true);
                    throw new NotRecorded(e);
                }
            }
            message.envelopeSender(!account.usesVerp() ? null : redirecting || envelope.length != 1
                    ? parts.accounts().envelopeSenderOfMail(account, mail.id()) // the redirect target is no recipient
                    : parts.accounts().envelopeSender(account, mail.id(), position(mail, envelope[0])));
            try {
                SmtpReply reply = connection.send(message, envelope);
                settle(permit, false);
                parts.metrics().sent(Duration.ofNanos(System.nanoTime() - sending), true);
                PartialDelivery.Split split = withSimulated(SmtpUtf8Gate.with(PartialDelivery.accepted(
                        redirecting ? open : envelope, reply, !mail.settled().isEmpty() || !notSmtpUtf8.isEmpty()
                                || !simulated.isEmpty(), refusedBefore(mail)), notSmtpUtf8), simulated, anyAccepted);
                return attempt(mail, started, split.verdict(), reply, split.error(), split.recipients(), account.name());
            } catch (SmtpUnreachableException e) { // a stale connection, and connecting again failed
                settle(permit, true);
                dueAgain = earlier(dueAgain, parts.health().unreachable(account.name(), describe(e), Instant.now()));
                append(unreachable, account.name(), describe(e));
            } catch (MessagingException e) {
                if (MarkNotRecordedException.isCause(e)) {
                    settle(permit, true);
                    throw new NotRecorded(e);
                }
                settle(permit, false);
                parts.metrics().sent(Duration.ofNanos(System.nanoTime() - sending), false);
                return failure(mail, started, message, account, e, anyAccepted, notSmtpUtf8, simulated, open,
                        redirecting);
            }
        }
        Instant due = dueAgain != null ? dueAgain : Instant.now().plus(RATE_STATE_RETRY);
        return new Change.HandedBack(mail.id(), parts.lease().claimer(), due, (profile.size() > 1
                ? "all " + profile.size() + " accounts unreachable: " : "account unreachable: ") + unreachable
                + "; waiting in the queue, attempts untouched");
    }

    /**
     * @param notSmtpUtf8 recipients refused before the send for want of SMTPUTF8: added to a per-recipient split
     * @param simulated   recipients not sent to, with their simulated results
     * @param real        the recipients meant to get the mail in this attempt (not those simulated)
     * @param redirected  true when the mail went to the redirect address: the server's per-recipient replies
     *                    concern that address, not the recipients
     */
    private Change failure(ClaimedMail mail, Instant started, GatedMessage message, Account account,
                           MessagingException e, boolean anyAccepted, List<RecipientResult> notSmtpUtf8,
                           List<RecipientResult> simulated, Address[] real, boolean redirected) {
        SmtpReply reply = SmtpReply.of(e);
        slowDownOn(account, reply);
        if (message.dataEnded() && reply.code() == null) {
            return attempt(mail, started, Verdict.IN_DOUBT, reply, "in doubt: the end of DATA was sent and no answer came ("
                    + describe(e) + ")", List.of(), account.name());
        }
        if (!redirected && e instanceof SendFailedException refusedSome) {
            PartialDelivery.Split split = PartialDelivery.of(refusedSome, anyAccepted);
            if (split != null) {
                split = withSimulated(SmtpUtf8Gate.with(split, notSmtpUtf8), simulated, anyAccepted);
                return attempt(mail, started, split.verdict(), reply, split.error(), split.recipients(), account.name());
            }
        }
        Verdict verdict = FailureClass.of(reply) == FailureClass.PERMANENT ? Verdict.PERMANENT : Verdict.TRANSIENT;
        if (!simulated.isEmpty()) { // the real recipients each get the mail's reply, beside the simulated ones
            RecipientStatus status = verdict == Verdict.PERMANENT ? RecipientStatus.REFUSED : RecipientStatus.DEFERRED;
            List<RecipientResult> results = new java.util.ArrayList<>();
            for (Address a : real) {
                results.add(new RecipientResult(PartialDelivery.bare(a), status, reply.code(), reply.text(),
                        reply.enhancedStatus()));
            }
            PartialDelivery.Split split = Simulation.merge(new PartialDelivery.Split(verdict, describe(e), results),
                    simulated, anyAccepted);
            return attempt(mail, started, split.verdict(), reply, split.error(), split.recipients(), account.name());
        }
        return attempt(mail, started, verdict, reply, describe(e), List.of(), account.name());
    }

    /**
     * The change of a mail sent as one transaction per recipient ({@link SeparateTransactions}): in doubt when a
     * transaction's end of DATA got no answer, else sent once no recipient is left open (if any recipient ever
     * accepted it), else tried again while any is, else failed.
     */
    private Change separately(ClaimedMail mail, Instant started, Account account, SeparateTransactions.Outcome outcome,
                              List<RecipientResult> notSmtpUtf8, List<RecipientResult> simulated, boolean anyAccepted) {
        boolean accepted = anyAccepted || outcome.anySent();
        Verdict verdict = outcome.inDoubt() ? Verdict.IN_DOUBT : outcome.anyDeferred() ? Verdict.TRANSIENT
                : accepted ? Verdict.SENT : Verdict.PERMANENT;
        List<String> refusals = outcome.recipients().stream().filter(r -> r.status() != RecipientStatus.SENT)
                .map(r -> r.address() + " " + (r.status() == RecipientStatus.REFUSED ? "refused" : "deferred") + ": "
                        + (r.replyText() != null ? r.replyText() : "not tried"))
                .toList();
        String error = outcome.inDoubt() ? "in doubt: the end of DATA was sent and no answer came ("
                + (outcome.lastReply().text() == null ? "no reply" : outcome.lastReply().text()) + "); "
                + String.join("; ", refusals) : refusals.isEmpty() ? null : String.join("; ", refusals);
        PartialDelivery.Split split = withSimulated(SmtpUtf8Gate.with(new PartialDelivery.Split(verdict, error,
                outcome.recipients()), notSmtpUtf8), simulated, anyAccepted);
        return attempt(mail, started, outcome.inDoubt() ? Verdict.IN_DOUBT : split.verdict(), outcome.lastReply(),
                split.error(), split.recipients(), account.name());
    }

    /**
     * @return the recipient's position among the mail's To, Cc and Bcc (the first of that address, compared
     *         without case), as a per-recipient VERP token names it
     */
    static int position(ClaimedMail mail, Address recipient) {
        return position(mail, key(recipient));
    }

    /** As {@link #position(ClaimedMail, Address)} for a bare address. */
    static int position(ClaimedMail mail, String address) {
        String key = address.toLowerCase(Locale.ROOT);
        int i = 0;
        for (List<String> list : List.of(mail.to(), mail.cc(), mail.bcc())) {
            for (String listed : list) {
                if (listed.toLowerCase(Locale.ROOT).equals(key)) {
                    return i;
                }
                i++;
            }
        }
        throw new IllegalArgumentException("not a recipient of mail " + mail.id() + ": " + key);
    }

    /**
     * A mail none of whose open recipients is sent to: composed in full (its MIME written to nowhere, so
     * that what would fail in live mode fails here too), then recorded with the simulated replies.
     */
    private Change simulated(ClaimedMail mail, Instant started, GatedMessage message, List<RecipientResult> simulated,
                             boolean anyAccepted) {
        try {
            message.writeTo(java.io.OutputStream.nullOutputStream());
        } catch (java.io.IOException | MessagingException | RuntimeException e) {
            return attempt(mail, started, Verdict.PERMANENT, SmtpReply.NONE,
                    "cannot compose the message: " + describe(e), List.of(), mail.account());
        }
        PartialDelivery.Split split = Simulation.merge(null, simulated, anyAccepted);
        RecipientResult first = simulated.get(0);
        SmtpReply reply = simulated.stream().allMatch(r -> r.status() == first.status()
                && java.util.Objects.equals(r.replyText(), first.replyText()))
                ? new SmtpReply(first.replyCode(), first.replyText()) : SmtpReply.NONE;
        return attempt(mail, started, split.verdict(), reply, split.error(), split.recipients(), mail.account());
    }

    private static PartialDelivery.Split withSimulated(PartialDelivery.Split split, List<RecipientResult> simulated,
                                                       boolean anyAccepted) {
        return simulated.isEmpty() ? split : Simulation.merge(split, simulated, anyAccepted);
    }

    private Change attempt(ClaimedMail mail, Instant started, Verdict verdict, SmtpReply reply, String error,
                           List<RecipientResult> recipients, String account) {
        return new Change.Attempted(new AttemptResult(mail.id(), parts.lease(), parts.server(), account,
                mail.attemptsRemaining(), mail.expiresAt(), started, Instant.now(), verdict, reply.code(), reply.text(),
                reply.enhancedStatus(), error, recipients));
    }

    private static List<String> refusedBefore(ClaimedMail mail) {
        return mail.settled().entrySet().stream().filter(e -> e.getValue() == RecipientStatus.REFUSED)
                .map(Map.Entry::getKey).sorted().toList();
    }

    /** @return the permit, or null when the rate state could not be read */
    private SendPermit permit(Account account, Instant now) {
        Refusal refusal = refused.get(account.name());
        if (refusal != null) {
            if (now.isBefore(refusal.permit.retryTimes().get(0))) {
                return refusal.permit;
            }
            refused.remove(account.name());
        }
        try {
            return parts.throttle().acquire(account, now);
        } catch (RuntimeException e) {
            LOG.log(Level.INFO, "rate state of account " + account.name() + " not available now; deferring", e);
            return null;
        }
    }

    private void settle(SendPermit permit, boolean neverReachedServer) {
        if (!permit.holdsState()) {
            return;
        }
        try {
            if (neverReachedServer) {
                parts.throttle().release(permit, Instant.now());
            } else {
                parts.throttle().complete(permit, Instant.now());
            }
        } catch (RuntimeException e) {
            // The slot stays taken as in flight and frees itself later: fewer sends, never more.
            LOG.log(Level.WARNING, "could not settle a send slot of account " + permit.account(), e);
        }
    }

    private void slowDownOn(Account account, SmtpReply reply) {
        if (reply.isSlowDown() && account.perMinute() > 0) {
            try {
                int limit = parts.throttle().slowDown(account, Instant.now());
                LOG.info(() -> "account " + account.name() + " slows down to " + limit + " per minute after: "
                        + LogText.escape(reply.text()));
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "could not slow down account " + account.name(), e);
            }
        }
    }

    /** Gives the borrowed connections back to the pool for the next claimer. */
    @Override
    public void close() {
        borrowed.values().forEach(parts.connections()::giveBack);
        borrowed.clear();
    }

    private static Instant earlier(Instant a, Instant b) {
        return a == null || b.isBefore(a) ? b : a;
    }

    private static void append(StringBuilder text, String account, String what) {
        text.append(text.isEmpty() ? "" : "; ").append(account).append(": ").append(what);
    }

    /** @return the address as the recipient table keys it: the bare address, lower case */
    static String key(Address address) {
        String bare = address instanceof InternetAddress ia ? ia.getAddress() : address.toString();
        return bare.toLowerCase(Locale.ROOT);
    }

    /** The failure with its causes, e.g. "MailConnectException: Couldn't connect ... <- ConnectException: refused". */
    static String describe(Throwable failure) {
        StringBuilder text = new StringBuilder();
        Throwable t = failure;
        for (int depth = 0; t != null && depth < 5; depth++) {
            if (!text.isEmpty()) {
                text.append(" <- ");
            }
            text.append(t.getClass().getSimpleName()).append(": ").append(t.getMessage());
            t = t.getCause() == t ? null : t.getCause();
        }
        return text.toString();
    }
}
