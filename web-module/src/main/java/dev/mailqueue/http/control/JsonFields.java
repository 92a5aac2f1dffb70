package dev.mailqueue.http.control;

import dev.mailqueue.api.FieldError;
import dev.mailqueue.api.Mailboxes;
import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The members of one JSON object read with exact types, as a request's fields: a string only from a
 * JSON string, a number only from a JSON number that is a whole number in range, a boolean only from
 * {@code true} or {@code false}, a list only from an array (a single value is never wrapped, an array
 * never unwrapped), and no array element {@code null}. A member whose value is {@code null} counts as
 * absent. Every mismatch is recorded as a {@link FieldError} named as the JSON names the member
 * ({@code priority}, {@code attachments[0].content}, {@code [3].to[1]}) and the getter answers null,
 * so all mismatches of a request are reported at once.
 */
public final class JsonFields {

    /** Longest member name shown back in an error, in characters. */
    static final int SHOWN_NAME_CHARS = 64;

    private final JsonObject object;
    private final String path;
    private final List<FieldError> errors;
    private final Set<String> read = new TreeSet<>(); // the member names asked for, so far

    /**
     * @param object the object
     * @param path   how the object itself is named: empty for the request, {@code [3]} for a mail of a
     *               batch, {@code attachments[0]} for a nested object
     * @param errors where mismatches are added
     */
    public JsonFields(JsonObject object, String path, List<FieldError> errors) {
        this.object = object;
        this.path = path;
        this.errors = errors;
    }

    /**
     * Records every member that no getter has asked for as an error: a misspelt field would otherwise be
     * dropped silently ({@code "bc"} for {@code "bcc"}). Call it after reading every member the object may
     * have; the names read are the object's fields, so they are written once, in the binder's reads.
     *
     * @param what what the object is, for the message, e.g. "a mail"
     */
    public void refuseUnread(String what) {
        for (String name : object.keySet()) {
            if (!read.contains(name)) {
                errors.add(new FieldError(field(shown(name)), "is not a field of " + what + "; its fields are " + read));
            }
        }
    }

    /** @return the member as a string; null when absent or not a string */
    public String string(String name) {
        JsonValue value = present(name);
        if (value == null) {
            return null;
        }
        if (value instanceof JsonString s) {
            return s.getString();
        }
        mismatch(name, "must be a string");
        return null;
    }

    /**
     * @return the member as a mailbox text: a string as it is, or an object {@code {"name", "address"}} (both
     *         strings, name optional) written as {@link Mailboxes#named}; null when absent or neither
     */
    public String mailbox(String name) {
        JsonValue value = present(name);
        return value == null ? null : mailbox(field(name), value);
    }

    /** @return the member as a list of mailbox texts (each as {@link #mailbox(String)}); null when absent */
    public List<String> mailboxes(String name) {
        JsonArray array = array(name, "must be a list of addresses: strings or {\"name\", \"address\"} objects");
        if (array == null) {
            return null;
        }
        List<String> result = new ArrayList<>(array.size());
        for (int i = 0; i < array.size(); i++) {
            result.add(mailbox(field(name) + "[" + i + "]", array.get(i))); // null keeps the others' positions
        }
        return result;
    }

    private String mailbox(String field, JsonValue value) {
        if (value instanceof JsonString s) {
            return s.getString();
        }
        if (value instanceof JsonObject o) {
            JsonFields parts = new JsonFields(o, field, errors);
            String address = parts.string("address");
            String displayName = parts.string("name");
            parts.refuseUnread("an address");
            if (address == null) {
                if (!o.containsKey("address")) {
                    errors.add(new FieldError(parts.field("address"), "is required"));
                }
                return null;
            }
            return Mailboxes.named(displayName, address);
        }
        errors.add(new FieldError(field, "must be a string or an object {\"name\", \"address\"}"));
        return null;
    }

    /** @return the member as a whole number from {@code min} to {@code max}; null when absent or not one */
    public Long whole(String name, long min, long max) {
        JsonValue value = present(name);
        return value == null ? null : whole(field(name), value, min, max);
    }

    /** @return the member as a boolean; null when absent or not {@code true}/{@code false} */
    public Boolean bool(String name) {
        JsonValue value = present(name);
        if (value == null) {
            return null;
        }
        if (value == JsonValue.TRUE || value == JsonValue.FALSE) {
            return value == JsonValue.TRUE;
        }
        mismatch(name, "must be true or false");
        return null;
    }

    /**
     * @return the member, an ISO-8601 instant in UTC or with an offset such as
     *         {@code 2026-12-24T18:00:00Z} ({@link java.time.format.DateTimeFormatter#ISO_INSTANT}); null
     *         when absent or not one. Whether it lies in the range the queue stores is the queue's rule.
     */
    public Instant instant(String name) {
        String text = string(name);
        if (text == null) {
            return null;
        }
        try {
            return Instant.parse(text);
        } catch (DateTimeParseException e) {
            mismatch(name, "must be an ISO-8601 instant such as 2026-12-24T18:00:00Z");
            return null;
        }
    }

    /** @return the member's bytes from base64 text (RFC 4648 §4, no line breaks); null when absent or not base64 */
    public byte[] base64(String name) {
        String text = string(name);
        if (text == null) {
            return null;
        }
        try {
            return Base64.getDecoder().decode(text);
        } catch (IllegalArgumentException e) {
            mismatch(name, "must be base64 text (RFC 4648 4, without line breaks)");
            return null;
        }
    }

    /**
     * @return the member as a list of strings, null in the place of an element that is not one; null when
     *         absent, an empty list when it is not an array
     */
    public List<String> strings(String name) {
        JsonArray array = array(name, "must be a list of strings");
        if (array == null) {
            return null;
        }
        List<String> result = new ArrayList<>(array.size());
        for (int i = 0; i < array.size(); i++) {
            if (array.get(i) instanceof JsonString s) {
                result.add(s.getString());
            } else {
                errors.add(new FieldError(field(name) + "[" + i + "]", "must be a string"));
                result.add(null); // keeps the positions of the others
            }
        }
        return result;
    }

    /** @return the member as a list of whole numbers in [min, max]; null when absent */
    public List<Long> wholes(String name, long min, long max) {
        JsonArray array = array(name, "must be a list of numbers");
        if (array == null) {
            return null;
        }
        List<Long> result = new ArrayList<>(array.size());
        for (int i = 0; i < array.size(); i++) {
            Long value = whole(field(name) + "[" + i + "]", array.get(i), min, max);
            if (value != null) {
                result.add(value);
            }
        }
        return result;
    }

    /** @return the member as an object of string values, in the order given; null when absent */
    public LinkedHashMap<String, String> stringMap(String name) {
        JsonValue value = present(name);
        if (value == null) {
            return null;
        }
        if (!(value instanceof JsonObject map)) {
            mismatch(name, "must be an object of names to strings, such as {\"X-Campaign\": \"spring\"}");
            return new LinkedHashMap<>();
        }
        LinkedHashMap<String, String> result = new LinkedHashMap<>();
        for (Map.Entry<String, JsonValue> entry : map.entrySet()) {
            if (entry.getValue() instanceof JsonString s) {
                result.put(entry.getKey(), s.getString());
            } else {
                errors.add(new FieldError(field(name) + "." + shown(entry.getKey()), "must be a string"));
            }
        }
        return result;
    }

    /** @return the object's member names, in the order given */
    public List<String> names() {
        return new ArrayList<>(object.keySet());
    }

    /** @return the member as an object to read on; null when absent or not an object */
    public JsonFields object(String name) {
        JsonValue value = present(name);
        if (value == null) {
            return null;
        }
        if (value instanceof JsonObject o) {
            return new JsonFields(o, field(name), errors);
        }
        mismatch(name, "must be an object");
        return null;
    }

    /**
     * @return the member, an object, as plain data: strings, {@link BigDecimal} numbers, booleans, nulls, lists
     *         and maps (in the order given); null when absent or not an object
     */
    public LinkedHashMap<String, Object> data(String name) {
        JsonValue value = present(name);
        if (value == null) {
            return null;
        }
        if (value instanceof JsonObject o) {
            @SuppressWarnings("unchecked")
            LinkedHashMap<String, Object> map = (LinkedHashMap<String, Object>) plain(o);
            return map;
        }
        mismatch(name, "must be an object of names to values");
        return null;
    }

    private static Object plain(JsonValue value) {
        return switch (value.getValueType()) {
            case STRING -> ((JsonString) value).getString();
            case NUMBER -> ((JsonNumber) value).bigDecimalValue();
            case TRUE -> Boolean.TRUE;
            case FALSE -> Boolean.FALSE;
            case NULL -> null;
            case ARRAY -> {
                List<Object> list = new ArrayList<>();
                for (JsonValue element : value.asJsonArray()) {
                    list.add(plain(element));
                }
                yield list;
            }
            case OBJECT -> {
                LinkedHashMap<String, Object> map = new LinkedHashMap<>();
                value.asJsonObject().forEach((key, member) -> map.put(key, plain(member)));
                yield map;
            }
        };
    }

    /** @return the member's elements as objects to read on; null when absent */
    public List<JsonFields> objects(String name) {
        JsonArray array = array(name, "must be a list of objects");
        if (array == null) {
            return null;
        }
        List<JsonFields> result = new ArrayList<>(array.size());
        for (int i = 0; i < array.size(); i++) {
            String element = field(name) + "[" + i + "]";
            if (array.get(i) instanceof JsonObject o) {
                result.add(new JsonFields(o, element, errors));
            } else {
                errors.add(new FieldError(element, "must be an object"));
                result.add(null);
            }
        }
        return result;
    }

    /**
     * @param name a member name
     * @return how errors name it: the path, a dot, the name
     */
    public String field(String name) {
        return path.isEmpty() ? name : path + "." + name;
    }

    /** @return a member name as errors show it: at most {@value #SHOWN_NAME_CHARS} characters */
    static String shown(String name) {
        return name.length() <= SHOWN_NAME_CHARS ? name : name.substring(0, SHOWN_NAME_CHARS) + "...";
    }

    private JsonArray array(String name, String expected) {
        JsonValue value = present(name);
        if (value == null) {
            return null;
        }
        if (value instanceof JsonArray array) {
            return array;
        }
        mismatch(name, expected);
        return JsonValue.EMPTY_JSON_ARRAY;
    }

    private Long whole(String field, JsonValue value, long min, long max) {
        if (!(value instanceof JsonNumber number)) {
            errors.add(new FieldError(field, "must be a number"));
            return null;
        }
        BigDecimal decimal = number.bigDecimalValue();
        try {
            long exact = decimal.longValueExact(); // throws for a fraction or beyond 64 bits, cheaply
            if (exact >= min && exact <= max) {
                return exact;
            }
        } catch (ArithmeticException e) {
            // reported below
        }
        errors.add(new FieldError(field, "must be a whole number from " + min + " to " + max));
        return null;
    }

    private JsonValue present(String name) {
        read.add(name);
        JsonValue value = object.get(name);
        return value == null || value == JsonValue.NULL ? null : value;
    }

    private void mismatch(String name, String message) {
        errors.add(new FieldError(field(name), message));
    }
}
