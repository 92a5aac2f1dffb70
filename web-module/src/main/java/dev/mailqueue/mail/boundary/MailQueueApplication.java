package dev.mailqueue.mail.boundary;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;
import org.eclipse.microprofile.openapi.annotations.OpenAPIDefinition;
import org.eclipse.microprofile.openapi.annotations.enums.SecuritySchemeType;
import org.eclipse.microprofile.openapi.annotations.info.Info;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;
import org.eclipse.microprofile.openapi.annotations.security.SecurityScheme;

/**
 * The REST API lives under {@code /api}; every call needs HTTP Basic authentication (web.xml). Its
 * OpenAPI description is served at {@code /openapi}, browsable at {@code /openapi/ui}.
 */
@ApplicationPath("api")
@OpenAPIDefinition(info = @Info(title = "mailqueue", version = "1.0",
        description = "A database-backed outbound e-mail queue: enqueue mail, follow it, operate the queue."
                + " Errors are application/problem+json (RFC 9457)."),
        security = @SecurityRequirement(name = "basic"))
@SecurityScheme(securitySchemeName = "basic", type = SecuritySchemeType.HTTP, scheme = "basic")
public class MailQueueApplication extends Application {
}
