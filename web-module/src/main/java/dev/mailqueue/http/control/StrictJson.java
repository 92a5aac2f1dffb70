package dev.mailqueue.http.control;

import dev.mailqueue.api.FieldError;
import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonException;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;
import jakarta.json.stream.JsonLocation;
import jakarta.json.stream.JsonParser;
import jakarta.json.stream.JsonParsingException;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.math.BigDecimal;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Reads one JSON text (RFC 8259) strictly, into a tree of {@link JsonValue}s, before anything is bound
 * to Java: the bytes must be UTF-8 (§8.1, no byte order mark), the text exactly one value with
 * nothing after it but whitespace (§2), no object may name a member twice (§4 leaves duplicates to
 * the parser; here they are an error, as a second {@code "from"} would otherwise silently win),
 * values nest at most {@value #MAX_DEPTH} deep, and a number is at most {@value #MAX_NUMBER_CHARS} characters with
 * a decimal exponent of at most {@value #MAX_EXPONENT} either way (RFC 8259 §9 lets a parser limit the range and
 * precision of numbers): a longer one would cost the parser time and memory that grow faster than its length, and
 * one like {@code 1e2147483648} has no {@link BigDecimal} at all. Such a number is refused naming its member
 * ({@code priority}, {@code [3].priority}, {@code template.variables.n}), before anything binds it. The body limit is the stream's business
 * ({@link LimitedInputStream}); its {@link RequestBodyException} passes through.
 */
public final class StrictJson {

    /** Deepest nesting of arrays and objects: a batch of mails with attachments needs 4. */
    public static final int MAX_DEPTH = 16;

    /** Longest number, characters: a long's 19 digits with sign, fraction and exponent fit many times over. */
    public static final int MAX_NUMBER_CHARS = 64;

    /** Largest decimal exponent of a number either way: 10^400 is far beyond any field, and still cheap to refuse. */
    public static final int MAX_EXPONENT = 400;

    private static final JsonProvider JSON = JsonProvider.provider();

    private StrictJson() {
    }

    /**
     * @param in the body, read to its end
     * @return the one value it holds
     * @throws MalformedJsonException when it is not exactly one strict JSON text, with where and why
     * @throws RequestBodyException   when the body broke the limit or ended before its Content-Length
     * @throws IOException            when reading failed otherwise (the client went away)
     */
    public static JsonValue read(InputStream in) throws IOException {
        Reader reader = new InputStreamReader(in, StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT));
        try (JsonParser parser = JSON.createParser(reader)) {
            if (!parser.hasNext()) {
                throw new MalformedJsonException("is empty: a JSON value is required");
            }
            JsonValue value = value(parser, parser.next(), 1, new ArrayDeque<>());
            if (parser.hasNext()) {
                throw new MalformedJsonException("has content after the JSON value" + at(parser.getLocation()));
            }
            return value;
        } catch (JsonParsingException e) {
            throw new MalformedJsonException("is not valid JSON" + at(e.getLocation()));
        } catch (JsonException e) {
            for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
                if (cause instanceof RequestBodyException body) {
                    throw body;
                }
                if (cause instanceof CharacterCodingException) {
                    throw new MalformedJsonException("is not UTF-8 text (RFC 8259 8.1)");
                }
            }
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            throw new MalformedJsonException("is not valid JSON");
        }
    }

    /**
     * @param path the member it is: member names and array indexes from the body down, made a field name
     *             ({@link #field}) only for an error, so that a large body costs no string a value
     */
    private static JsonValue value(JsonParser parser, JsonParser.Event event, int depth, Deque<Object> path) {
        if (depth > MAX_DEPTH) {
            throw new MalformedJsonException("nests arrays and objects deeper than " + MAX_DEPTH + " levels");
        }
        switch (event) {
            case START_OBJECT -> {
                JsonObjectBuilder object = JSON.createObjectBuilder();
                Set<String> names = new HashSet<>();
                for (JsonParser.Event next = parser.next(); next != JsonParser.Event.END_OBJECT; next = parser.next()) {
                    String name = parser.getString(); // KEY_NAME
                    if (!names.add(name)) {
                        throw new MalformedJsonException("names the member \"" + JsonFields.shown(name)
                                + "\" twice in one object" + at(parser.getLocation()));
                    }
                    path.addLast(name);
                    object.add(name, value(parser, parser.next(), depth + 1, path));
                    path.removeLast();
                }
                return object.build();
            }
            case START_ARRAY -> {
                JsonArrayBuilder array = JSON.createArrayBuilder();
                int index = 0;
                for (JsonParser.Event next = parser.next(); next != JsonParser.Event.END_ARRAY; next = parser.next()) {
                    path.addLast(index++);
                    array.add(value(parser, next, depth + 1, path));
                    path.removeLast();
                }
                return array.build();
            }
            case VALUE_STRING -> {
                return JSON.createValue(parser.getString());
            }
            case VALUE_NUMBER -> {
                return JSON.createValue(number(parser.getString(), path));
            }
            case VALUE_TRUE -> {
                return JsonValue.TRUE;
            }
            case VALUE_FALSE -> {
                return JsonValue.FALSE;
            }
            case VALUE_NULL -> {
                return JsonValue.NULL;
            }
            default -> throw new MalformedJsonException("is not valid JSON" + at(parser.getLocation()));
        }
    }

    /**
     * @param text a JSON number's characters, as the parser read them (its grammar already checked)
     * @param path the member that holds it, from the body down
     * @return its value
     * @throws MalformedJsonException naming the member when it is longer than {@value #MAX_NUMBER_CHARS} characters
     *                                or its exponent is beyond {@value #MAX_EXPONENT} either way
     */
    static BigDecimal number(String text, Deque<Object> path) {
        if (text.length() > MAX_NUMBER_CHARS) {
            throw new MalformedJsonException(field(path), "is a number of " + text.length() + " characters; at most "
                    + MAX_NUMBER_CHARS + " are taken");
        }
        BigDecimal number;
        try {
            number = new BigDecimal(text);
        } catch (NumberFormatException e) { // an exponent beyond an int
            number = null;
        }
        if (number == null || Math.abs((long) number.scale()) > MAX_EXPONENT) {
            throw new MalformedJsonException(field(path), "is a number out of range: its decimal exponent may be at most "
                    + MAX_EXPONENT + " either way");
        }
        return number;
    }

    /** @return the path as the API names fields: {@code priority}, {@code [3].to[0]}, {@code template.variables.n} */
    static String field(Deque<Object> path) {
        StringBuilder field = new StringBuilder();
        for (Object step : path) {
            if (step instanceof Integer index) {
                field.append('[').append(index).append(']');
            } else {
                field.append(field.isEmpty() ? "" : ".").append(JsonFields.shown((String) step));
            }
        }
        return field.toString();
    }

    private static String at(JsonLocation location) {
        return location == null ? "" : " (line " + location.getLineNumber() + ", column " + location.getColumnNumber() + ")";
    }

    /** The body is not one strict JSON text. The message is ours, never the parser's or the body's. */
    public static final class MalformedJsonException extends RuntimeException {

        private static final long serialVersionUID = 1L;

        /** The member at fault ({@code ""}: the body as a whole). */
        private final String field;
        private final String reason;

        MalformedJsonException(String message) {
            this("", "the body " + message);
        }

        MalformedJsonException(String field, String reason) {
            super(field.isEmpty() ? reason : field + " " + reason);
            this.field = field;
            this.reason = reason;
        }

        /** @return the problem as a field error on the member at fault, or on the body (field {@code ""}) */
        public List<FieldError> errors() {
            return List.of(new FieldError(field, reason));
        }
    }
}
