package dev.mailqueue.api.validation;

import jakarta.validation.ConstraintValidator;
import jakarta.validation.ConstraintValidatorContext;

/** Checks {@link NoLineBreaks}. */
public class NoLineBreaksValidator implements ConstraintValidator<NoLineBreaks, String> {

    @Override
    public boolean isValid(String value, ConstraintValidatorContext context) {
        return value == null || (value.indexOf('\r') < 0 && value.indexOf('\n') < 0);
    }
}
