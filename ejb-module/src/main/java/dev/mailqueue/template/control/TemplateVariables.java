package dev.mailqueue.template.control;

import dev.mailqueue.api.FieldError;
import dev.mailqueue.api.MailLimits;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The shape rules of a template's variables: what JSON holds (strings, numbers, booleans, lists, maps with string
 * keys, null), nested at most {@value MailLimits#TEMPLATE_VARIABLE_DEPTH} deep. Any other object is refused, so a
 * template can never call a method of a caller's object (FreeMarker would expose its getters and methods).
 */
public final class TemplateVariables {

    private TemplateVariables() {
    }

    /**
     * @param variables a request's variables, by name
     * @param field     how the variables are named in errors, e.g. {@code template.variables}
     * @return a copy of them as plain maps and lists, or the first variable at fault
     */
    public static Result check(Map<String, Object> variables, String field) {
        List<FieldError> errors = new ArrayList<>(1);
        Object copy = copy(variables, field, 0, errors);
        if (!errors.isEmpty()) {
            return new Result(null, Optional.of(errors.get(0)));
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> map = (Map<String, Object>) copy;
        return new Result(map, Optional.empty());
    }

    /**
     * @param variables the checked copy, when there is no error
     * @param error     the first variable at fault
     */
    public record Result(Map<String, Object> variables, Optional<FieldError> error) {
    }

    private static Object copy(Object value, String path, int depth, List<FieldError> errors) {
        if (!errors.isEmpty()) {
            return null;
        }
        if (value == null || value instanceof String || value instanceof Boolean) {
            return value;
        }
        if (value instanceof Integer || value instanceof Long || value instanceof Short || value instanceof Byte
                || value instanceof BigDecimal || value instanceof BigInteger) {
            return value;
        }
        if (value instanceof Double d && Double.isFinite(d) || value instanceof Float f && Float.isFinite(f)) {
            return value;
        }
        if (depth >= MailLimits.TEMPLATE_VARIABLE_DEPTH && (value instanceof Map || value instanceof List)) {
            errors.add(new FieldError(path, "is nested deeper than " + MailLimits.TEMPLATE_VARIABLE_DEPTH + " levels"));
            return null;
        }
        if (value instanceof Map<?, ?> map) {
            Map<String, Object> result = new LinkedHashMap<>();
            for (Map.Entry<?, ?> e : map.entrySet()) {
                if (!(e.getKey() instanceof String key)) {
                    errors.add(new FieldError(path, "must have string keys"));
                    return null;
                }
                result.put(key, copy(e.getValue(), path + "." + key, depth + 1, errors));
            }
            return result;
        }
        if (value instanceof List<?> list) {
            List<Object> result = new ArrayList<>(list.size());
            for (int i = 0; i < list.size(); i++) {
                result.add(copy(list.get(i), path + "[" + i + "]", depth + 1, errors));
            }
            return result;
        }
        errors.add(new FieldError(path, "must be a string, number, boolean, list or map, not a "
                + value.getClass().getSimpleName()));
        return null;
    }
}
