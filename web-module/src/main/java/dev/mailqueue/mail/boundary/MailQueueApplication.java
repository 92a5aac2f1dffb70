package dev.mailqueue.mail.boundary;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

/** The REST API lives under {@code /api}. */
@ApplicationPath("api")
public class MailQueueApplication extends Application {
}
