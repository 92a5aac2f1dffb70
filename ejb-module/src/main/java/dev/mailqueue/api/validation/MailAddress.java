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
 * A bare ASCII e-mail address ({@code local@domain}: no display name, no quoted local part, no
 * internationalized address) that Jakarta Mail parses strictly and
 * that fits RFC 5321: local part at most 64 octets (§4.5.3.1.1), domain at most 255 (§4.5.3.1.2), the
 * whole at most 254 (§4.5.3.1.3). {@code null} is valid; combine with {@code @NotNull} where needed.
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
