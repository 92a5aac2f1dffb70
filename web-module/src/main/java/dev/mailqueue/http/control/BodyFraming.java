package dev.mailqueue.http.control;

import java.util.List;
import java.util.OptionalLong;

/**
 * How long a request body says it is, refused when its framing is ambiguous, the classic ground for
 * request smuggling between a proxy and this server (RFC 9112 §6.3, §11.2): both
 * {@code Transfer-Encoding} and {@code Content-Length} (§6.1: "ought to be handled as an error"),
 * {@code Content-Length} given more than once or as a list (§6.3 item 5, also when the values agree),
 * or a {@code Content-Length} that is not a decimal number of at most 18 digits (RFC 9110 §8.6).
 * <p>
 * Over HTTP/2 and later the frames delimit the body, and RFC 9113 §8.1.1 makes a request whose
 * {@code content-length} disagrees with its DATA frames malformed: there is no second framing for a proxy to read
 * differently. There, fields that repeat one value count as that value: Open Liberty's HTTP/2 layer hands the servlet
 * each HTTP/2 request's {@code content-length} twice (seen with curl 7.88 and the JDK 17 client on Liberty 26.0.0.3;
 * RequestLimitsIT), and
 * refusing it refused every POST of an HTTP/2 client. Values that differ are still refused.
 *
 * @param declared        the declared length in bytes, when a {@code Content-Length} was given
 * @param transferEncoded whether the body comes with a {@code Transfer-Encoding} (chunked) instead
 */
public record BodyFraming(OptionalLong declared, boolean transferEncoded) {

    /**
     * @param contentLengths   every {@code Content-Length} field of the request, in order
     * @param transferEncoded  whether a {@code Transfer-Encoding} field is present
     * @return the framing
     * @throws IllegalArgumentException saying why the framing is refused
     */
    public static BodyFraming of(List<String> contentLengths, boolean transferEncoded) {
        return of(contentLengths, transferEncoded, false);
    }

    /**
     * @param contentLengths  every {@code Content-Length} field of the request, in order
     * @param transferEncoded whether a {@code Transfer-Encoding} field is present
     * @param framed          whether the protocol frames the body itself (HTTP/2 or later, {@link #framed(String)})
     * @return the framing
     * @throws IllegalArgumentException saying why the framing is refused
     */
    public static BodyFraming of(List<String> contentLengths, boolean transferEncoded, boolean framed) {
        if (framed && contentLengths.size() > 1 && contentLengths.stream().distinct().count() == 1) {
            contentLengths = contentLengths.subList(0, 1);
        }
        if (contentLengths.isEmpty()) {
            return new BodyFraming(OptionalLong.empty(), transferEncoded);
        }
        if (transferEncoded) {
            throw new IllegalArgumentException("a request may not have both Transfer-Encoding and Content-Length");
        }
        if (contentLengths.size() > 1 || contentLengths.get(0).contains(",")) {
            throw new IllegalArgumentException("Content-Length may be given only once");
        }
        String value = contentLengths.get(0).strip();
        if (value.isEmpty() || value.length() > 18 || !value.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new IllegalArgumentException("Content-Length is not a number of bytes");
        }
        return new BodyFraming(OptionalLong.of(Long.parseLong(value)), false);
    }

    /**
     * @param protocol the request's protocol as the servlet container names it, e.g. {@code HTTP/1.1}, {@code HTTP/2.0}
     * @return whether it frames a request body itself: HTTP/2 or later
     */
    public static boolean framed(String protocol) {
        return protocol != null && (protocol.startsWith("HTTP/2") || protocol.startsWith("HTTP/3"));
    }

    /** @return whether the request has a body: Transfer-Encoding, or a Content-Length above 0 */
    public boolean hasBody() {
        return transferEncoded || declared.isPresent() && declared.getAsLong() > 0;
    }
}
