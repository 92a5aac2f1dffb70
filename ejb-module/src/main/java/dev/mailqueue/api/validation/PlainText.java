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
 * Text the queue can store in every supported database and send in a mail: no NUL (PostgreSQL refuses
 * it in text columns) and no other control character (U+0000 to U+001F, U+007F) except tab, and for
 * {@link #multiline() multi-line} text (bodies) CR and LF; and well-formed UTF-16, i.e. no unpaired
 * surrogate, which has no UTF-8 encoding (RFC 3629 §3). Single-line text (a subject, a display name)
 * refuses CR and LF, which would end the header field and start another (header injection,
 * RFC 5322 §2.2). {@code null} is valid.
 */
@Documented
@Constraint(validatedBy = PlainTextValidator.class)
@Target({FIELD, PARAMETER, TYPE_USE})
@Retention(RUNTIME)
public @interface PlainText {

    /** @return true for a body: tab, CR and LF allowed; false for a header value: only tab */
    boolean multiline() default false;

    String message() default "must be text without control characters";

    Class<?>[] groups() default {};

    Class<? extends Payload>[] payload() default {};
}
