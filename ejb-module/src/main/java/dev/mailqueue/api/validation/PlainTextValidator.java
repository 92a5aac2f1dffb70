package dev.mailqueue.api.validation;

import jakarta.validation.ConstraintValidator;
import jakarta.validation.ConstraintValidatorContext;

/** Checks {@link PlainText}; {@link #problemWith} is the rule, shared with the queue's other text checks. */
public class PlainTextValidator implements ConstraintValidator<PlainText, String> {

    private boolean multiline;

    @Override
    public void initialize(PlainText annotation) {
        multiline = annotation.multiline();
    }

    @Override
    public boolean isValid(String value, ConstraintValidatorContext context) {
        String problem = value == null ? null : problemWith(value, multiline);
        if (problem == null) {
            return true;
        }
        context.disableDefaultConstraintViolation();
        context.buildConstraintViolationWithTemplate(problem).addConstraintViolation();
        return false;
    }

    /**
     * @param value     the text, not null
     * @param multiline whether CR and LF are allowed
     * @return null when the text is acceptable, else a sentence saying what is wrong (never quoting the text)
     */
    public static String problemWith(String value, boolean multiline) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '\t' || multiline && (c == '\r' || c == '\n')) {
                continue;
            }
            if (c < 0x20 || c == 0x7f) {
                return multiline ? "must not contain NUL or other control characters (tab, CR and LF are allowed)"
                        : "must not contain CR, LF, NUL or other control characters (tab is allowed)";
            }
            if (Character.isHighSurrogate(c) && i + 1 < value.length() && Character.isLowSurrogate(value.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return "must be well-formed Unicode text (an unpaired surrogate has no UTF-8 form)";
            }
        }
        return null;
    }
}
