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
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Reads one JSON text (RFC 8259) strictly, into a tree of {@link JsonValue}s, before anything is bound
 * to Java: the bytes must be UTF-8 (§8.1, no byte order mark), the text exactly one value with
 * nothing after it but whitespace (§2), no object may name a member twice (§4 leaves duplicates to
 * the parser; here they are an error, as a second {@code "from"} would otherwise silently win), and
 * values nest at most {@value #MAX_DEPTH} deep. The body limit is the stream's business
 * ({@link LimitedInputStream}); its {@link RequestBodyException} passes through.
 */
public final class StrictJson {

    /** Deepest nesting of arrays and objects: a batch of mails with attachments needs 4. */
    public static final int MAX_DEPTH = 16;

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
            JsonValue value = value(parser, parser.next(), 1);
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

    private static JsonValue value(JsonParser parser, JsonParser.Event event, int depth) {
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
                    object.add(name, value(parser, parser.next(), depth + 1));
                }
                return object.build();
            }
            case START_ARRAY -> {
                JsonArrayBuilder array = JSON.createArrayBuilder();
                for (JsonParser.Event next = parser.next(); next != JsonParser.Event.END_ARRAY; next = parser.next()) {
                    array.add(value(parser, next, depth + 1));
                }
                return array.build();
            }
            case VALUE_STRING -> {
                return JSON.createValue(parser.getString());
            }
            case VALUE_NUMBER -> {
                return JSON.createValue(parser.getBigDecimal());
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

    private static String at(JsonLocation location) {
        return location == null ? "" : " (line " + location.getLineNumber() + ", column " + location.getColumnNumber() + ")";
    }

    /** The body is not one strict JSON text. The message is ours, never the parser's or the body's. */
    public static final class MalformedJsonException extends RuntimeException {

        private static final long serialVersionUID = 1L;

        MalformedJsonException(String message) {
            super(message);
        }

        /** @return the problem as a field error on the body (field {@code ""}) */
        public List<FieldError> errors() {
            return List.of(new FieldError("", "the body " + getMessage()));
        }
    }
}
