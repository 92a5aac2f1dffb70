package dev.mailqueue.api.validation;

import dev.mailqueue.api.MailLimits;
import dev.mailqueue.api.MailRequest;
import jakarta.validation.ConstraintValidator;
import jakarta.validation.ConstraintValidatorContext;

import java.time.Instant;
import java.util.List;

/** Checks {@link DeliverableMail} on a {@link MailRequest}. */
public class DeliverableMailValidator implements ConstraintValidator<DeliverableMail, MailRequest> {

    /** The message for a time outside {@link MailLimits#storable}. */
    static final String OUT_OF_RANGE = "must lie from " + MailLimits.EARLIEST_INSTANT + " to " + MailLimits.LATEST_INSTANT;

    @Override
    public boolean isValid(MailRequest mail, ConstraintValidatorContext context) {
        if (mail == null) {
            return true;
        }
        context.disableDefaultConstraintViolation();
        boolean valid = true;
        int recipients = size(mail.getTo()) + size(mail.getCc()) + size(mail.getBcc());
        if (recipients == 0) {
            violation(context, "to", "at least one recipient is required in to, cc or bcc");
            valid = false;
        } else if (recipients > MailLimits.RECIPIENTS) {
            violation(context, "to", "at most 100 recipients in to, cc and bcc together (RFC 5321 4.5.3.1.8)");
            valid = false;
        }
        Instant notBefore = mail.getNotBefore();
        if (notBefore != null && !MailLimits.storable(notBefore)) {
            violation(context, "notBefore", OUT_OF_RANGE);
            valid = false;
            notBefore = null;
        }
        Instant expiresAt = mail.getExpiresAt();
        if (expiresAt != null && !MailLimits.storable(expiresAt)) {
            violation(context, "expiresAt", OUT_OF_RANGE);
            valid = false;
        } else if (expiresAt != null && !expiresAt.isAfter(Instant.now())) {
            violation(context, "expiresAt", "must be in the future");
            valid = false;
        } else if (expiresAt != null && notBefore != null && !expiresAt.isAfter(notBefore)) {
            violation(context, "expiresAt", "must be after notBefore");
            valid = false;
        }
        if (isEmpty(mail.getText()) && isEmpty(mail.getHtml())) {
            violation(context, "text", "a text or an HTML body is required");
            valid = false;
        }
        return valid;
    }

    private static void violation(ConstraintValidatorContext context, String field, String message) {
        context.buildConstraintViolationWithTemplate(message).addPropertyNode(field).addConstraintViolation();
    }

    private static int size(List<?> list) {
        return list == null ? 0 : list.size();
    }

    private static boolean isEmpty(String s) {
        return s == null || s.isEmpty();
    }
}
