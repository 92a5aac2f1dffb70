package dev.mailqueue.http.boundary;

import dev.mailqueue.http.control.StatusTexts;
import dev.mailqueue.log.control.LogText;
import dev.mailqueue.http.control.Problem;
import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The error page of the web module (web.xml {@code <error-page>}): whatever status the container
 * answers by itself (401 from the login, 403 from a security constraint, 404 for an unknown file,
 * 405, 413, 415, a 400 for a header it cannot parse, or a 500 from an exception no mapper caught)
 * becomes an RFC 9457 problem ({@code application/problem+json}) of type {@code about:blank}, whose
 * title is the status's reason phrase (RFC 9457 §4.2.1). The body never carries the exception or the
 * container's message: an uncaught exception is logged with an incident id that the answer names.
 * Headers the container set before (such as {@code WWW-Authenticate} on a 401) stay.
 *
 * <p>Requested directly (not as an error dispatch) it answers 404 like any unknown path.
 */
@WebServlet(urlPatterns = ErrorPageServlet.PATH)
public class ErrorPageServlet extends HttpServlet {

    /** The path web.xml's error pages point at. */
    public static final String PATH = "/error-page";

    private static final Logger LOG = Logger.getLogger(ErrorPageServlet.class.getName());

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        Object code = request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE);
        int status = code instanceof Integer value && value >= 400 && value <= 599 ? value : 404;
        String detail = StatusTexts.detail(status);
        Object failure = request.getAttribute(RequestDispatcher.ERROR_EXCEPTION);
        if (failure instanceof Throwable thrown && status >= 500) {
            String incident = Incidents.next();
            LOG.log(Level.SEVERE, "incident " + incident + " (error page)", LogText.safe(thrown));
            detail = detail + " The log has incident " + incident + ".";
        }
        // Liberty marks an error dispatch's response with an internal "$WSEP" header; it is nothing for a client.
        response.setHeader("$WSEP", null);
        ProblemWriter.write(response, new Problem("about:blank", StatusTexts.title(status), status, detail,
                List.of()));
    }
}
