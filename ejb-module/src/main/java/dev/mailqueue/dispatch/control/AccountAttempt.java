package dev.mailqueue.dispatch.control;

import dev.mailqueue.account.control.Account;
import dev.mailqueue.account.control.SendPermit;
import dev.mailqueue.queue.control.Change;
import jakarta.mail.MessagingException;

import java.time.Duration;
import java.time.Instant;

/**
 * One account's try at one attempt of a mail: it holds the account's granted send slot and its relay, and gives the
 * slot back once, when it closes (try-with-resources): kept for the account's window when the server may have got
 * the mail, freed at once otherwise. In order: the relay is opened; the recipients it can carry are chosen
 * ({@link RecipientPlan#envelopeFor}); the claimer hears that the mail is about to be sent ({@link SendMarks}); the
 * mail is handed over, as one transaction, or one per recipient on a VERP account ({@link SeparateTransactions}); the
 * reply becomes the attempt's {@link Change} ({@link Verdicts}). Not thread safe; one per try.
 */
final class AccountAttempt implements AutoCloseable {

    private final Account account;
    private final SendPermit permit;
    private final Relay relay;
    private final AccountParts parts;
    private boolean reachedServer;
    private SmtpUnreachableException unreachable;

    /**
     * @param account  the account tried
     * @param permit   its granted send slot, settled by {@link #close()}
     * @param relay    its relay, borrowed for the claimer
     * @param parts    what the claimer's tries read: health, permits, verdicts, metrics
     */
    AccountAttempt(Account account, SendPermit permit, Relay relay, AccountParts parts) {
        this.account = account;
        this.permit = permit;
        this.relay = relay;
        this.parts = parts;
    }

    /**
     * @param attempt the mail's attempt
     * @param marks   hears that the mail is about to be sent, and gives the gate the end of its DATA waits at
     * @return the change to record, or null when the relay could not be reached ({@link #unreachable()}): the server
     *         has nothing of the mail and the next account may be tried
     * @throws NotRecorded when the claimer's gate did not open in time: nothing was delivered
     * @throws Unsendable  when the mail needs SMTPUTF8 that this relay lacks, or cannot be written without it
     */
    Change deliver(Attempt attempt, SendMarks marks) throws NotRecorded, Unsendable {
        try {
            relay.open();
        } catch (SmtpUnreachableException e) {
            unreachable = e;
            return null;
        }
        if (relay.isOpen()) { // a connection was made; an API relay holds none and is reached once it answers
            parts.health().reached(account.name());
        }
        RecipientPlan.Envelope envelope = attempt.plan().envelopeFor(relay);
        if (envelope.recipients().length == 0) {
            return parts.verdicts().noneSendable(attempt, envelope, account.name());
        }
        if (envelope.downgrade()) {
            downgrade(attempt.message());
        }
        attempt.message().arm(marks.sendStarted(attempt.mail().id(), Instant.now()), parts.markWaitMillis());
        long sending = System.nanoTime();
        try {
            return account.usesVerp() && !attempt.plan().redirected() && envelope.recipients().length > 1
                    ? separately(attempt, envelope, sending) : whole(attempt, envelope, sending);
        } catch (SmtpUnreachableException e) { // a stale connection, and connecting again failed
            unreachable = e;
            return null;
        } catch (MessagingException e) {
            if (MarkNotRecordedException.isCause(e)) {
                throw new NotRecorded(e);
            }
            answered();
            parts.timer().sent(Duration.ofNanos(System.nanoTime() - sending), false);
            parts.permits().slowDownOn(account, SmtpReply.of(e));
            return parts.verdicts().refused(attempt, envelope, e, account.name());
        }
    }

    private Change whole(Attempt attempt, RecipientPlan.Envelope envelope, long sending) throws MessagingException {
        attempt.message().envelopeSender(!account.usesVerp() ? null
                : attempt.plan().redirected() || envelope.recipients().length != 1
                ? parts.accounts().envelopeSenderOfMail(account, attempt.mail().id()) // the redirect target is no recipient
                : parts.accounts().envelopeSender(account, attempt.mail().id(), RecipientPlan.position(attempt.mail(),
                        PartialDelivery.bare(envelope.recipients()[0]))));
        SmtpReply reply = relay.send(attempt.message(), envelope.recipients());
        answered();
        parts.timer().sent(Duration.ofNanos(System.nanoTime() - sending), true);
        return parts.verdicts().accepted(attempt, envelope, reply, account.name());
    }

    /** @throws MessagingException when the first transaction failed as a whole, or its gate did not open in time */
    private Change separately(Attempt attempt, RecipientPlan.Envelope envelope, long sending) throws MessagingException {
        SeparateTransactions.Outcome outcome = SeparateTransactions.send(relay, attempt.message(), envelope.recipients(),
                i -> parts.accounts().envelopeSender(account, attempt.mail().id(), RecipientPlan.position(attempt.mail(),
                        PartialDelivery.bare(envelope.recipients()[i]))));
        if (outcome.firstFailed() != null) {
            throw outcome.firstFailed();
        }
        answered();
        parts.timer().sent(Duration.ofNanos(System.nanoTime() - sending), outcome.anySent());
        parts.permits().slowDownOn(account, outcome.lastReply());
        return parts.verdicts().separately(attempt, envelope, outcome, account.name());
    }

    /** The server got (part of) the mail; a relay that opened no connection counts the account reached now. */
    private void answered() {
        reachedServer = true;
        if (!relay.isOpen()) {
            parts.health().reached(account.name());
        }
    }

    private void downgrade(GatedMessage message) throws Unsendable {
        try {
            MimeMessageFactory.downgrade(message);
        } catch (MessagingException e) {
            throw new Unsendable(dev.mailqueue.queue.control.Verdict.PERMANENT,
                    "cannot compose the message without SMTPUTF8: " + FailureText.describe(e), account.name());
        }
    }

    /** @return why the relay could not be reached, or null when it was */
    SmtpUnreachableException unreachable() {
        return unreachable;
    }

    /** Settles the send slot: the one place it is given back. */
    @Override
    public void close() {
        parts.permits().settle(permit, reachedServer);
    }
}
