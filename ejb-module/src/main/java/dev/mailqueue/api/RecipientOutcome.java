package dev.mailqueue.api;

import java.io.Serializable;
import java.time.Instant;

/**
 * One recipient of a mail and where it stands, for the operator's view of one mail: every To, Cc and Bcc
 * recipient in that order. Its {@code status} is its own when an SMTP answer, a bounce, a complaint or
 * the suppression list concerned it alone ({@code perRecipient} true: {@code SENT}, {@code REFUSED},
 * {@code DEFERRED}, {@code BOUNCED}, {@code COMPLAINED}, {@code SUPPRESSED}), else the mail's:
 * {@code PENDING} while the mail is QUEUED, SENDING or HELD, otherwise the mail's status ({@code SENT},
 * {@code FAILED}, {@code CANCELLED}, {@code EXPIRED}, {@code SUPPRESSED}). A recipient that shares a {@code SENT} or
 * {@code FAILED} status shows the reply of the attempt that settled the mail (the SMTP transaction that answered
 * for every recipient at once, e.g. {@code 250} to the end of DATA). Only the local view ({@link MailDetail}, the
 * operator's console) returns it, so it is a record: the remote views stay the classes their clients know.
 *
 * @param field          {@code to}, {@code cc} or {@code bcc}
 * @param address        the address as stored (domain in A-labels)
 * @param name           the display name, or null
 * @param status         see above
 * @param perRecipient   true when the status is this recipient's own, false when it is the mail's
 * @param replyCode      the SMTP reply code for this recipient (its own, or the settling attempt's), or null
 * @param enhancedStatus the RFC 3463 enhanced status code, or null
 * @param replyText      the reply text or the reason, or null
 * @param updatedAt      when its own status was last set, or when the attempt that settled the mail ended; null when
 *                       neither
 */
public record RecipientOutcome(String field, String address, String name, String status, boolean perRecipient,
                               Integer replyCode, String enhancedStatus, String replyText, Instant updatedAt)
        implements Serializable {

    /**
     * @param field   {@code to}, {@code cc} or {@code bcc}
     * @param address the address as stored
     * @param name    the display name, or null
     * @param status  the mail's status for this recipient, or {@code PENDING}
     * @return a recipient that shares the mail's status and has no reply
     */
    public static RecipientOutcome shared(String field, String address, String name, String status) {
        return new RecipientOutcome(field, address, name, status, false, null, null, null, null);
    }
}
