package dev.mailqueue.http.control;

import java.util.Map;

/**
 * The fixed words of a problem the container or the HTTP edge answers: the reason phrase of each
 * status (RFC 9110 §15, the {@code title} of an {@code about:blank} problem, RFC 9457 §4.2.1) and one
 * sentence that says what to do. Fixed texts, so no exception message, path or header value of the
 * request ever reaches the caller through them.
 */
public final class StatusTexts {

    private static final Map<Integer, String> TITLES = Map.ofEntries(
            Map.entry(400, "Bad Request"), Map.entry(401, "Unauthorized"), Map.entry(403, "Forbidden"),
            Map.entry(404, "Not Found"), Map.entry(405, "Method Not Allowed"), Map.entry(406, "Not Acceptable"),
            Map.entry(408, "Request Timeout"), Map.entry(409, "Conflict"), Map.entry(411, "Length Required"),
            Map.entry(413, "Content Too Large"), Map.entry(414, "URI Too Long"),
            Map.entry(415, "Unsupported Media Type"), Map.entry(431, "Request Header Fields Too Large"),
            Map.entry(500, "Internal Server Error"), Map.entry(501, "Not Implemented"),
            Map.entry(503, "Service Unavailable"));

    private static final Map<Integer, String> DETAILS = Map.ofEntries(
            Map.entry(400, "The request could not be read: its path, a header or its body is malformed."),
            Map.entry(401, "This needs the HTTP Basic credentials (RFC 7617) of a user of the queue."),
            Map.entry(403, "Your user may not do this."),
            Map.entry(404, "There is nothing at this path."),
            Map.entry(405, "This path does not take this HTTP method."),
            Map.entry(406, "This path answers application/json (errors application/problem+json) only."),
            Map.entry(408, "The request did not arrive in time."),
            Map.entry(411, "The request needs a Content-Length."),
            Map.entry(413, "The request body is larger than this server accepts."),
            Map.entry(414, "The request's path and query are longer than this server accepts."),
            Map.entry(415, "This path takes application/json only."),
            Map.entry(431, "The request's header fields are larger than this server accepts."),
            Map.entry(500, "The request failed on the server."),
            Map.entry(503, "The server cannot answer now; try again later."));

    private StatusTexts() {
    }

    /**
     * @param status an HTTP status, 400 to 599
     * @return its reason phrase, or "Client Error" / "Server Error" for a status without one here
     */
    public static String title(int status) {
        return TITLES.getOrDefault(status, status < 500 ? "Client Error" : "Server Error");
    }

    /**
     * @param status an HTTP status, 400 to 599
     * @return one sentence for the caller; a generic one for a status without its own
     */
    public static String detail(int status) {
        return DETAILS.getOrDefault(status, status < 500 ? "The request was refused." : "The request failed on the server.");
    }
}
