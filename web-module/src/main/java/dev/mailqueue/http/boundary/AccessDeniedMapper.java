package dev.mailqueue.http.boundary;

import dev.mailqueue.http.control.Problem;
import jakarta.ejb.EJBAccessException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

import java.util.List;

/**
 * An EJB refused the caller its role (the URL constraints of web.xml normally answer 403 first): 403
 * problem details, not a 500.
 */
@Provider
public class AccessDeniedMapper implements ExceptionMapper<EJBAccessException> {

    @Override
    public Response toResponse(EJBAccessException e) {
        return new Problem("urn:mailqueue:problem:forbidden", "Forbidden", 403,
                "Your user does not have the role this needs.", List.of()).toResponse();
    }
}
