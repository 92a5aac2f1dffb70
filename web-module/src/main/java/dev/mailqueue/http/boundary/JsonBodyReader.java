package dev.mailqueue.http.boundary;

import dev.mailqueue.api.FieldError;
import dev.mailqueue.api.MailFilter;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.http.control.MailFilterJson;
import dev.mailqueue.http.control.MailRequestJson;
import dev.mailqueue.http.control.RequestBodyException;
import dev.mailqueue.http.control.StrictJson;
import dev.mailqueue.http.control.Problem;
import jakarta.json.JsonValue;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.ext.MessageBodyReader;
import jakarta.ws.rs.ext.Provider;

import java.io.IOException;
import java.io.InputStream;
import java.lang.annotation.Annotation;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the JSON bodies of the API strictly, in place of JSON-B: a mail ({@link MailRequest}), a batch
 * of mails ({@code List<MailRequest>}) and a bulk action's filter ({@link MailFilter}). JSON-B
 * (Yasson) cannot be told to stop coercing ({@code "perRecipient": "yes"} read as false,
 * {@code 1e400} as 0, {@code ["a@x"]} unwrapped to a string) or to refuse content after the value;
 * it can only be told to refuse unknown properties. So the body is read by {@link StrictJson} (one
 * UTF-8 JSON text, no duplicate names, nothing after it, counted against the body limit while it is
 * read) and bound by {@link MailRequestJson} / {@link MailFilterJson} with exact types.
 *
 * <p>Answers, all problem details: 400 {@code malformed-json} for a body that is not one JSON text,
 * 400 {@code invalid-mail} / {@code invalid-filter} naming each field of the wrong shape, 413 for a
 * body over {@code mailqueue.http.max-request-bytes}, 400 naming {@code Content-Length} or
 * {@code Transfer-Encoding} for a body shorter than its Content-Length or a broken chunked body.
 */
@Provider
@Consumes(MediaType.APPLICATION_JSON)
public class JsonBodyReader implements MessageBodyReader<Object> {

    @Override
    public boolean isReadable(Class<?> type, Type genericType, Annotation[] annotations, MediaType mediaType) {
        return type == MailRequest.class || type == MailFilter.class || isMailList(type, genericType);
    }

    @Override
    public Object readFrom(Class<Object> type, Type genericType, Annotation[] annotations, MediaType mediaType,
                           MultivaluedMap<String, String> headers, InputStream body) throws IOException {
        JsonValue json = json(body);
        List<FieldError> errors = new ArrayList<>();
        Object result;
        String kind;
        if ((Class<?>) type == MailFilter.class) {
            result = MailFilterJson.filter(json, errors);
            kind = "filter";
        } else if ((Class<?>) type == MailRequest.class) {
            result = MailRequestJson.mail(json, errors);
            kind = "mail";
        } else {
            result = MailRequestJson.mails(json, errors);
            kind = "mail";
        }
        if (!errors.isEmpty()) {
            throw new ProblemException(kind.equals("filter")
                    ? new Problem("urn:mailqueue:problem:invalid-filter", "Invalid filter", 400,
                            "Nothing was changed: " + errors.size() + " field(s) at fault.", errors)
                    : new Problem("urn:mailqueue:problem:invalid-mail", "Invalid mail", 400,
                            "The mail was not queued: " + errors.size() + " field(s) at fault.", errors));
        }
        return result;
    }

    /**
     * @param body a request body
     * @return it read strictly as one JSON text ({@link StrictJson})
     * @throws ProblemException 400 {@code malformed-json} for a body that is not one JSON text, or as
     *                          {@link #unreadable} for one over the limit or with broken framing
     * @throws IOException      when the body cannot be read
     */
    public static JsonValue json(InputStream body) throws IOException {
        try {
            return StrictJson.read(body);
        } catch (StrictJson.MalformedJsonException e) {
            throw new ProblemException(new Problem("urn:mailqueue:problem:malformed-json", "Malformed request body", 400,
                    "The body is not one valid JSON text; nothing was done.", e.errors()));
        } catch (RequestBodyException e) {
            throw unreadable(e);
        }
    }

    private static boolean isMailList(Class<?> type, Type genericType) {
        return List.class.isAssignableFrom(type) && genericType instanceof ParameterizedType parameterized
                && parameterized.getActualTypeArguments().length == 1
                && parameterized.getActualTypeArguments()[0] == MailRequest.class;
    }

    /**
     * @param e why a request body could not be read to its end
     * @return the answer: 413 naming the limit for a body over {@code mailqueue.http.max-request-bytes}, else 400
     *         naming the header whose promise the body broke
     */
    public static ProblemException unreadable(RequestBodyException e) {
        return new ProblemException(e.status() == 413
                ? new Problem("urn:mailqueue:problem:request-too-large", "Content Too Large", 413,
                        "The request body is larger than this server accepts; nothing was done.",
                        List.of(new FieldError("", e.getMessage() + " (mailqueue.http.max-request-bytes)")))
                : new Problem("urn:mailqueue:problem:malformed-request", "Bad Request", 400,
                        "The request body is incomplete or its framing is broken; nothing was done.",
                        List.of(new FieldError(e.field(), e.getMessage()))));
    }
}
