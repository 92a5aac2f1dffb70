package dev.mailqueue.dispatch.control;

import dev.mailqueue.queue.control.Change;
import dev.mailqueue.queue.control.ClaimedMail;

import java.time.Instant;

/**
 * Sends one claimed mail and says what became of it, as the {@link Change} to record: an attempt, or the mail handed
 * back unsent. Each attempt is a plan, then tries, then a verdict:
 * <ol>
 *   <li>a mail past its expires-at is EXPIRED, not sent;</li>
 *   <li>its message is composed ({@link MailComposer}); a mail that cannot be composed fails for good;</li>
 *   <li>its recipients are planned once ({@link RecipientPlan}): those an earlier attempt settled are left out, the
 *       simulator's addresses and a SANDBOX server's recipients are answered without a server, a REDIRECT server's
 *       go to its one address; a mail with no recipient left for a server is recorded at once;</li>
 *   <li>it is signed, then tried on its account and the accounts of its failover list ({@link AccountFailover}),
 *       each try owning its send slot and relay ({@link AccountAttempt});</li>
 *   <li>the replies become the verdict ({@link Verdicts}).</li>
 * </ol>
 * One per claimer: not thread safe. Its relays are borrowed for the claimer's lifetime.
 */
final class MailDelivery implements AutoCloseable {

    private final MailComposer composer;
    private final RecipientPlan.Policy policy;
    private final AccountFailover accounts;
    private final Verdicts verdicts;

    /**
     * @param composer makes each attempt's message
     * @param policy   how this server treats recipients (mode, redirect address)
     * @param accounts the claimer's accounts, tried in failover order
     * @param verdicts makes the changes to record
     */
    MailDelivery(MailComposer composer, RecipientPlan.Policy policy, AccountFailover accounts, Verdicts verdicts) {
        this.composer = composer;
        this.policy = policy;
        this.accounts = accounts;
        this.verdicts = verdicts;
    }

    /**
     * @param mail  a mail the claimer holds
     * @param marks hears that the mail is about to be sent, and gives the gate the end of its DATA waits at
     * @return the change to record for it
     * @throws NotRecorded when the gate did not open in time, or the database was away when its bodies were read;
     *                     nothing was delivered
     */
    Change deliver(ClaimedMail mail, SendMarks marks) throws NotRecorded {
        Instant started = Instant.now();
        if (mail.expiresAt() != null && !started.isBefore(mail.expiresAt())) {
            return verdicts.expired(mail, started);
        }
        try {
            GatedMessage message = composer.compose(mail, started);
            RecipientPlan plan = policy.plan(mail, message);
            if (plan.nothingOpen()) {
                return verdicts.settledBefore(mail, started, plan);
            }
            if (plan.nothingReal()) {
                composer.writeNowhere(message, mail.account());
                return verdicts.simulatedOnly(mail, started, plan);
            }
            plan.prepare(message);
            composer.sign(message);
            return accounts.deliver(new Attempt(mail, started, plan, message), marks);
        } catch (Unsendable e) {
            return verdicts.failed(mail, started, e);
        }
    }

    /** Gives the borrowed relays back to the pool for the next claimer. */
    @Override
    public void close() {
        accounts.close();
    }
}
