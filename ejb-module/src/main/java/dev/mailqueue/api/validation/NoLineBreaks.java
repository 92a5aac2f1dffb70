package dev.mailqueue.api.validation;

import jakarta.validation.Constraint;
import jakarta.validation.Payload;

import java.lang.annotation.Documented;
import java.lang.annotation.Retention;
import java.lang.annotation.Target;

import static java.lang.annotation.ElementType.FIELD;
import static java.lang.annotation.ElementType.PARAMETER;
import static java.lang.annotation.RetentionPolicy.RUNTIME;

/**
 * A header value with no CR or LF in it: a line break in a subject or a display name would let a
 * caller inject headers of its own. {@code null} is valid.
 */
@Documented
@Constraint(validatedBy = NoLineBreaksValidator.class)
@Target({FIELD, PARAMETER})
@Retention(RUNTIME)
public @interface NoLineBreaks {

    String message() default "must not contain CR or LF";

    Class<?>[] groups() default {};

    Class<? extends Payload>[] payload() default {};
}
