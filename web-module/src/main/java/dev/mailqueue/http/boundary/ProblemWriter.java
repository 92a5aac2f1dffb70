package dev.mailqueue.http.boundary;

import dev.mailqueue.http.control.Problem;
import jakarta.json.bind.Jsonb;
import jakarta.json.bind.JsonbBuilder;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Writes a {@link Problem} as the whole body of a servlet response, {@code application/problem+json}
 * (RFC 9457 §3) in UTF-8 (RFC 8259 §8.1), for the answers given outside JAX-RS: error pages and the
 * request filters.
 */
final class ProblemWriter {

    private static final Jsonb JSON = JsonbBuilder.create();

    private ProblemWriter() {
    }

    /**
     * Replaces whatever body the response had buffered (headers stay) with the problem. Does nothing when
     * the response is already committed: a status and headers already sent cannot be taken back.
     *
     * @param response the response, not yet committed
     * @param problem  what to answer; its status becomes the response's
     * @throws IOException when the client went away
     */
    static void write(HttpServletResponse response, Problem problem) throws IOException {
        if (response.isCommitted()) {
            return;
        }
        response.resetBuffer();
        byte[] body = JSON.toJson(problem).getBytes(StandardCharsets.UTF_8);
        response.setStatus(problem.status());
        response.setContentType(Problem.MEDIA_TYPE.toString());
        response.setContentLength(body.length);
        response.getOutputStream().write(body); // not flushed: the container commits it, with the status it keeps
    }
}
