package dev.mailqueue.dispatch.control;

import dev.mailqueue.queue.control.ClaimedMail;
import dev.mailqueue.queue.control.NewMail;
import dev.mailqueue.queue.control.StoreException;
import dev.mailqueue.queue.control.Verdict;
import jakarta.mail.MessagingException;
import jakarta.mail.Session;

import java.io.IOException;
import java.io.OutputStream;
import java.time.Instant;
import java.util.List;
import java.util.function.LongFunction;

/**
 * Makes the message of one attempt of a claimed mail: reads its bodies when the claim left them out, composes it
 * ({@link MimeMessageFactory}) with the one-click unsubscribe fields of a mail of a list, and signs it with its
 * domain's DKIM key ({@link DkimSigning}). One per claimer.
 */
final class MailComposer {

    /** Writes the one-click unsubscribe fields of a mail of a list when it is sent. */
    @FunctionalInterface
    interface ListFields {
        /**
         * @param list      the mail's list
         * @param recipient its one recipient
         * @param at        now: the link expires a lifetime after
         * @return the fields; empty when one-click unsubscribe is not (any more) configured
         */
        List<NewMail.Header> of(String list, String recipient, Instant at);
    }

    /** No one-click unsubscribe fields. */
    static final ListFields NO_LIST_FIELDS = (list, recipient, at) -> List.of();

    private final Session session;
    private final LongFunction<ClaimedMail.Body> bodies;
    private final MimeMessageFactory.AttachmentReader attachments;
    private final ListFields listFields;
    private final DkimSigning signing;

    /**
     * @param session     the session whose MIME settings compose every message (its transport is not used)
     * @param bodies      reads a mail's bodies by its id, when the claim left them out
     * @param attachments reads an attachment's content
     * @param listFields  the unsubscribe fields of a mail of a list
     * @param signing     the DKIM keys, or {@link DkimSigning#NONE}
     */
    MailComposer(Session session, LongFunction<ClaimedMail.Body> bodies, MimeMessageFactory.AttachmentReader attachments,
                 ListFields listFields, DkimSigning signing) {
        this.session = session;
        this.bodies = bodies;
        this.attachments = attachments;
        this.listFields = listFields;
        this.signing = signing;
    }

    /**
     * @param mail    the claimed mail
     * @param started when the attempt began: the unsubscribe link's lifetime starts then
     * @return its message, not yet signed
     * @throws NotRecorded when the database was away as its bodies were read: nothing was delivered
     * @throws Unsendable  when its bodies cannot be read (TRANSIENT) or it cannot be composed (PERMANENT)
     */
    GatedMessage compose(ClaimedMail mail, Instant started) throws NotRecorded, Unsendable {
        ClaimedMail.Body body;
        try {
            body = mail.body() != null ? mail.body() : bodies.apply(mail.id());
        } catch (RuntimeException e) {
            if (StoreException.isConnectionFailure(e)) {
                throw new NotRecorded(e);
            }
            throw new Unsendable(Verdict.TRANSIENT, "could not read the mail's bodies: " + FailureText.describe(e), null);
        }
        try {
            return MimeMessageFactory.compose(session, mail, body, attachments, mail.unsubscribeList() == null
                    ? List.of() : listFields.of(mail.unsubscribeList(), mail.firstRecipient(), started));
        } catch (MessagingException | RuntimeException e) {
            throw new Unsendable(Verdict.PERMANENT, "cannot compose the message: " + FailureText.describe(e), null);
        }
    }

    /**
     * @param message a composed message, to be signed when its From domain has a key
     * @throws Unsendable when its From cannot be read (PERMANENT), or its domain's key cannot be read now
     *                    (TRANSIENT: unsigned mail could be refused, so it waits)
     */
    void sign(GatedMessage message) throws Unsendable {
        try {
            message.signWith(signing.keyFor(message));
        } catch (MessagingException e) {
            throw new Unsendable(Verdict.PERMANENT, "cannot read the From field to choose a DKIM key: "
                    + FailureText.describe(e), null);
        } catch (IllegalStateException e) {
            throw new Unsendable(Verdict.TRANSIENT, e.getMessage(), null);
        }
    }

    /**
     * Writes a message that no server gets to nowhere, so that what would fail in live mode fails here too.
     *
     * @param message the composed message
     * @param account the account its attempt is recorded on
     * @throws Unsendable when it cannot be written: PERMANENT
     */
    void writeNowhere(GatedMessage message, String account) throws Unsendable {
        try {
            message.writeTo(OutputStream.nullOutputStream());
        } catch (IOException | MessagingException | RuntimeException e) {
            throw new Unsendable(Verdict.PERMANENT, "cannot compose the message: " + FailureText.describe(e), account);
        }
    }
}
