package dev.mailqueue.it.apps;

import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;

/** {@code GET /events-subscriber/received}: what {@link EventSubscriber} received, one message a line. */
@WebServlet("/received")
public class EventsServlet extends HttpServlet {

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        response.setContentType("text/plain;charset=UTF-8");
        for (String line : EventSubscriber.RECEIVED) {
            response.getWriter().println(line);
        }
    }
}
