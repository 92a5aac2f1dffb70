package dev.mailqueue.api.validation;

import jakarta.validation.Constraint;
import jakarta.validation.Payload;

import java.lang.annotation.Documented;
import java.lang.annotation.Retention;
import java.lang.annotation.Target;

import static java.lang.annotation.ElementType.TYPE;
import static java.lang.annotation.RetentionPolicy.RUNTIME;

/**
 * The rules of a mail request that span fields: at least one recipient in to, cc or bcc, at most
 * {@link dev.mailqueue.api.MailLimits#RECIPIENTS} in all, a text or an HTML body, notBefore and
 * expiresAt from {@link dev.mailqueue.api.MailLimits#EARLIEST_INSTANT} to
 * {@link dev.mailqueue.api.MailLimits#LATEST_INSTANT}, and an expiresAt in the future and after
 * notBefore. Each violation names the field it is reported on ({@code to}, {@code text},
 * {@code notBefore} or {@code expiresAt}).
 */
@Documented
@Constraint(validatedBy = DeliverableMailValidator.class)
@Target(TYPE)
@Retention(RUNTIME)
public @interface DeliverableMail {

    String message() default "is not deliverable";

    Class<?>[] groups() default {};

    Class<? extends Payload>[] payload() default {};
}
