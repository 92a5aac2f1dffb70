package dev.mailqueue.http.boundary;

import dev.mailqueue.api.FieldError;
import dev.mailqueue.http.control.BasicCredentials;
import dev.mailqueue.http.control.StatusTexts;
import dev.mailqueue.http.control.Problem;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.security.auth.message.callback.PasswordValidationCallback;
import jakarta.security.enterprise.AuthenticationException;
import jakarta.security.enterprise.AuthenticationStatus;
import jakarta.security.enterprise.authentication.mechanism.http.HttpAuthenticationMechanism;
import jakarta.security.enterprise.authentication.mechanism.http.HttpMessageContext;
import jakarta.security.enterprise.credential.UsernamePasswordCredential;
import jakarta.security.enterprise.identitystore.CredentialValidationResult;
import jakarta.security.enterprise.identitystore.IdentityStoreHandler;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import javax.security.auth.callback.Callback;
import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * HTTP Basic authentication (RFC 7617) of the web module, as web.xml's {@code BASIC} login did it,
 * except that a missing or refused login is answered with problem details: {@code 401} with
 * {@code WWW-Authenticate: Basic realm="mailqueue"} and an
 * {@code application/problem+json} body (RFC 9457), which Liberty's own BASIC login cannot give (it
 * writes an empty 401 that no error page sees).
 *
 * <p>A resource no constraint protects (the error page) is left alone, whatever the request carries:
 * the error dispatch of a refused login must not be refused again.
 *
 * <p>Credentials are checked by the application's identity stores if it has any, else, as Liberty's
 * own mechanism does, by the server's user registry ({@code basicRegistry}, LDAP) through the
 * container's callback handler (Jakarta Authentication {@link PasswordValidationCallback}); the
 * groups, and so the roles of {@code <application-bnd>}, come from the registry as before.
 */
@ApplicationScoped
public class BasicAuthentication implements HttpAuthenticationMechanism {

    /** The realm named in the challenge, as web.xml's login-config named it. */
    static final String REALM = "mailqueue";

    @Inject
    Instance<IdentityStoreHandler> identityStores;

    @Override
    public AuthenticationStatus validateRequest(HttpServletRequest request, HttpServletResponse response,
                                                HttpMessageContext context) throws AuthenticationException {
        String header = request.getHeader("Authorization");
        Optional<BasicCredentials> credentials = BasicCredentials.parse(header);
        boolean malformedBasic = credentials.isEmpty() && header != null && header.startsWith("Basic ");
        if (!context.isProtected() && !context.isAuthenticationRequest()) {
            return context.doNothing(); // e.g. the error page, which answers anyone
        }
        if (malformedBasic) {
            return malformed(context);
        }
        if (credentials.isPresent()) {
            AuthenticationStatus status = validate(credentials.get(), context);
            if (status == AuthenticationStatus.SUCCESS) {
                return status;
            }
        }
        return challenge(context);
    }

    private AuthenticationStatus validate(BasicCredentials credentials, HttpMessageContext context)
            throws AuthenticationException {
        if (identityStores.isResolvable()) {
            CredentialValidationResult result = identityStores.get().validate(
                    new UsernamePasswordCredential(credentials.user(), credentials.password()));
            if (result.getStatus() == CredentialValidationResult.Status.VALID) {
                return context.notifyContainerAboutLogin(result);
            }
            if (result.getStatus() == CredentialValidationResult.Status.INVALID) {
                return AuthenticationStatus.SEND_FAILURE;
            }
        }
        // No identity store decided: the server's user registry, through the container (as Liberty's BASIC does).
        PasswordValidationCallback check = new PasswordValidationCallback(context.getClientSubject(),
                credentials.user(), credentials.password().toCharArray());
        try {
            context.getHandler().handle(new Callback[]{check});
        } catch (IOException | RuntimeException | javax.security.auth.callback.UnsupportedCallbackException e) {
            throw new AuthenticationException("the user registry could not check the credentials", e);
        }
        return check.getResult() ? AuthenticationStatus.SUCCESS : AuthenticationStatus.SEND_FAILURE;
    }

    /**
     * A {@code Basic} header that is not base64 of user, colon and password: 400 problem details (RFC 9110
     * §15.5.1, malformed syntax), written and committed here. Open Liberty 26.0.0.3 cannot answer it
     * itself: after any Jakarta Security mechanism has run, {@code WebProviderAuthenticatorProxy
     * .authenticateForOtherMechanisms} decodes a {@code Basic} header again for its audit record and takes
     * the text up to a colon it never checks for, so such a header ends in a NullPointerException or
     * StringIndexOutOfBoundsException (logged as SRVE0315E, with an FFDC), and a 401 through the error page
     * would meet the same failure and go out empty. Committed first, this answer is what the caller gets.
     */
    private static AuthenticationStatus malformed(HttpMessageContext context) throws AuthenticationException {
        HttpServletResponse response = context.getResponse();
        response.setHeader("WWW-Authenticate", "Basic realm=\"" + REALM + "\"");
        try {
            ProblemWriter.write(response, new Problem("urn:mailqueue:problem:malformed-credentials", "Bad Request", 400,
                    "The Authorization header is not HTTP Basic credentials (RFC 7617): base64 of user, colon, password.",
                    List.of(new FieldError("Authorization", "is not base64 of user-id \":\" password"))));
            response.flushBuffer();
        } catch (IOException e) {
            throw new AuthenticationException("could not answer 400", e);
        }
        return AuthenticationStatus.SEND_CONTINUE;
    }

    /** Asks for a login: 401 problem details with the Basic challenge (RFC 7617 §2). */
    private static AuthenticationStatus challenge(HttpMessageContext context)
            throws AuthenticationException {
        HttpServletResponse response = context.getResponse();
        response.setHeader("WWW-Authenticate", "Basic realm=\"" + REALM + "\"");
        try {
            ProblemWriter.write(response, new Problem("about:blank", StatusTexts.title(401), 401,
                    StatusTexts.detail(401), List.of()));
        } catch (IOException e) {
            throw new AuthenticationException("could not answer 401", e);
        }
        return AuthenticationStatus.SEND_CONTINUE;
    }
}
