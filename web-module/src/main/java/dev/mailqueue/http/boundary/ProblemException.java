package dev.mailqueue.http.boundary;

import dev.mailqueue.http.control.Problem;
import jakarta.ws.rs.WebApplicationException;

/**
 * A refusal that already knows its problem details: JAX-RS answers with its response as it is (a
 * {@link WebApplicationException} whose response has an entity, Jakarta REST 3.1 §3.3.4).
 */
public class ProblemException extends WebApplicationException {

    private static final long serialVersionUID = 1L;

    /** @param problem the answer, with its status */
    public ProblemException(Problem problem) {
        super(problem.title(), problem.toResponse());
    }
}
