package dev.mailqueue.api.validation;

import jakarta.validation.Constraint;
import jakarta.validation.Payload;

import java.lang.annotation.Documented;
import java.lang.annotation.Retention;
import java.lang.annotation.Target;

import static java.lang.annotation.ElementType.FIELD;
import static java.lang.annotation.ElementType.PARAMETER;
import static java.lang.annotation.ElementType.TYPE_USE;
import static java.lang.annotation.RetentionPolicy.RUNTIME;

/**
 * One mailbox: a bare address ({@code jane@example.com}) or an RFC 5322 {@code name-addr}
 * ({@code "Doe, Jane" <jane@example.com>}), with a Unicode domain (IDNA, sent as its A-label) or a
 * non-ASCII local part (SMTPUTF8, RFC 6531) if need be. Rules and reasons: {@code MailboxParser} in
 * {@code dev.mailqueue.address.control}, and the README's rules table; in short, strict Jakarta Mail
 * parsing, no control characters, no comments, no groups, no quoted local part, names of at most 200
 * characters, and RFC 5321 octet limits on the form sent (local part 64, domain 255, address 254).
 * {@code null} is valid; combine with {@code @NotNull} where needed.
 */
@Documented
@Constraint(validatedBy = MailAddressValidator.class)
@Target({FIELD, PARAMETER, TYPE_USE})
@Retention(RUNTIME)
public @interface MailAddress {

    String message() default "is not a valid e-mail address";

    Class<?>[] groups() default {};

    Class<? extends Payload>[] payload() default {};
}
