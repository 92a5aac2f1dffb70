package dev.mailqueue.dispatch.control;

import dev.mailqueue.graph.control.GraphSettings;
import dev.mailqueue.log.control.LogText;
import dev.mailqueue.login.control.AccessTokens;
import dev.mailqueue.login.control.IssuedToken;
import dev.mailqueue.login.control.TokenException;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonValue;
import jakarta.mail.Address;
import jakarta.mail.MessagingException;
import jakarta.mail.internet.InternetAddress;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.channels.UnresolvedAddressException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

/**
 * An account's relay through Microsoft Graph: each mail is one {@code POST /v1.0/users/{mailbox}/sendMail} with the
 * queue's own MIME message, base64-encoded, as {@code text/plain} (Graph's "send mail in MIME format"), and the
 * account's OAuth2 access token as the bearer token. Graph takes the recipients from the message's To, Cc and Bcc
 * fields (it removes Bcc before delivery), so the message is written with its Bcc field, and an attempt whose
 * envelope is not exactly those recipients (some settled by an earlier attempt, a REDIRECT server) cannot go through
 * Graph and fails for those recipients ({@code 550 5.5.0}); Graph sets its own envelope sender, so a Graph account
 * has no VERP address. The claimer's gate is awaited while the message is written to memory, before the request.
 *
 * <p>Graph's answers map to the delivery policy (Microsoft Graph's error responses and throttling guidance):
 * <ul>
 *   <li>{@code 202 Accepted}: sent; the reply kept on the attempt is {@code 250 Accepted}, with Graph's
 *       {@code request-id} (Graph returns no message id; the mail's own Message-ID stays its id);</li>
 *   <li>{@code 401}: the token was refused; it is dropped and the request made once more with a new one (nothing
 *       was sent); refused again, the account is unreachable;</li>
 *   <li>{@code 403}, {@code 404}: the application may not send as the mailbox, or it does not exist: the account
 *       is unreachable, the mail waits with its attempts untouched or fails over;</li>
 *   <li>{@code 429}: {@code 451 4.7.0}, tried again later, and the account slows down;</li>
 *   <li>{@code 400}: {@code 554 5.6.0}, never tried again; {@code 413}: {@code 552 5.3.4};</li>
 *   <li>no connection or no token: unreachable;</li>
 *   <li>the request written and no answer, or {@code 500}, {@code 502}, {@code 504}: in doubt;</li>
 *   <li>{@code 503} and anything else: {@code 451 4.3.0}, tried again later.</li>
 * </ul>
 * Not thread safe: one claimer at a time; it holds no connection of its own, so it is never kept in the idle pool.
 */
final class GraphRelay extends ApiRelay {

    /** The header fields never written: as Angus Mail's SMTP transport, but Bcc is kept (Graph reads it). */
    private static final String[] NOT_WRITTEN = {"Content-Length"};
    /** The most of an error answer read, bytes: its code and message are at the start. */
    private static final int ERROR_BYTES = 8_192;

    private final GraphSettings settings;
    private final HttpClient client;
    private final AccessTokens tokens;
    private IssuedToken token;

    /**
     * @param account  the account's name
     * @param settings its Graph settings
     * @param client   the HTTP client of the Graph accounts
     * @param tokens   the access tokens of the OAuth2 logins, the account's among them
     */
    GraphRelay(String account, GraphSettings settings, HttpClient client, AccessTokens tokens) {
        super(account);
        this.settings = settings;
        this.client = client;
        this.tokens = tokens;
    }


    /**
     * Takes the account's access token (kept and renewed by {@link AccessTokens}).
     *
     * @throws SmtpUnreachableException when no token could be had: nothing was sent
     */
    @Override
    public void open() throws SmtpUnreachableException {
        try {
            token = tokens.token(account());
        } catch (TokenException e) {
            throw new SmtpUnreachableException("Microsoft Graph unusable: ", new MessagingException(e.getMessage(), e));
        }
    }




    /**
     * @return {@code 250 Accepted} with Graph's request id once Graph took the message
     * @throws SmtpUnreachableException when Graph could not be reached, or refuses the account or its token
     * @throws ApiRefusedException      when Graph refused the message, as the SMTP reply of the same meaning, or the
     *                                  envelope is not the message's own recipients
     * @throws MessagingException       without a reply code when the request was written and no answer came (the
     *                                  mail is in doubt), or when the claimer's gate did not open in time
     */
    @Override
    public SmtpReply send(GatedMessage message, Address[] recipients) throws MessagingException {
        requireOwnRecipients(message, recipients);
        byte[] body = Base64.getEncoder().encode(bytes(message, NOT_WRITTEN)); // through the claimer's gate
        if (token == null) {
            open();
        }
        try {
            HttpResponse<InputStream> answer = post(body);
            if (answer.statusCode() == 401) {
                close(answer);
                tokens.refused(account(), token); // not processed: safe to ask once more with a new token
                open();
                answer = post(body);
            }
            return answer(answer);
        } finally {
            used();
        }
    }

    private HttpResponse<InputStream> post(byte[] body) throws MessagingException {
        HttpRequest request = HttpRequest.newBuilder(settings.sendMail()).timeout(settings.timeout())
                .header("Authorization", "Bearer " + token.value())
                .header("Content-Type", "text/plain")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
        try {
            return client.send(request, HttpResponse.BodyHandlers.ofInputStream());
        } catch (HttpConnectTimeoutException | ConnectException e) {
            throw unreachable(e);
        } catch (IOException e) {
            if (e.getCause() instanceof UnresolvedAddressException || e.getCause() instanceof ConnectException) {
                throw unreachable(e);
            }
            throw new MessagingException("no answer from Microsoft Graph, account " + account() + ": "
                    + LogText.escape(String.valueOf(e.getMessage())));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MessagingException("interrupted while Microsoft Graph had the request of account " + account());
        }
    }

    private SmtpUnreachableException unreachable(Exception e) {
        return new SmtpUnreachableException("Microsoft Graph unreachable: ", new MessagingException("account "
                + account() + ": " + LogText.escape(String.valueOf(e.getMessage()))));
    }

    /** @return the reply of an accepted request; throws the failure of any other answer */
    private SmtpReply answer(HttpResponse<InputStream> answer) throws MessagingException {
        int status = answer.statusCode();
        String requestId = answer.headers().firstValue("request-id").orElse("none");
        if (status == 202 || status == 200) {
            close(answer);
            return new SmtpReply(250, "250 Accepted by Microsoft Graph, request-id " + LogText.escape(requestId));
        }
        String error = error(answer);
        String text = "Microsoft Graph answered " + status + error + " (request-id " + LogText.escape(requestId)
                + answer.headers().firstValue("Retry-After").map(r -> ", Retry-After " + LogText.escape(r)).orElse("")
                + ")";
        throw refusal(status, text);
    }

    /**
     * @param status the HTTP status of Graph's answer, not 2xx
     * @param text   what to record: the status, Graph's error code and message, its request id
     * @return the failure as the delivery policy reads it
     */
    static MessagingException refusal(int status, String text) {
        return switch (status) {
            case 401, 403, 404 -> new SmtpUnreachableException("Microsoft Graph refuses the account: ",
                    new ApiRefusedException(454, "4.7.0 " + text));
            case 429 -> new ApiRefusedException(451, "4.7.0 " + text);
            case 400 -> new ApiRefusedException(554, "5.6.0 " + text);
            case 413 -> new ApiRefusedException(552, "5.3.4 " + text);
            case 500, 502, 504 -> new MessagingException("no sure answer from " + text);
            default -> new ApiRefusedException(451, "4.3.0 " + text);
        };
    }

    /** @return {@code ": <code>: <message>"} of Graph's error body, read up to {@value #ERROR_BYTES} bytes; "" if none */
    private static String error(HttpResponse<InputStream> answer) {
        byte[] start;
        try (InputStream in = answer.body()) {
            start = in.readNBytes(ERROR_BYTES);
        } catch (IOException e) {
            return "";
        }
        try (JsonReader reader = Json.createReader(new ByteArrayInputStream(start))) {
            JsonValue error = reader.readObject().get("error");
            if (error instanceof JsonObject e) {
                return ": " + LogText.escape(e.getString("code", "")) + ": " + LogText.escape(e.getString("message", ""));
            }
        } catch (RuntimeException notJson) {
            // cut off, or not Graph's error shape: the status says enough
        }
        return "";
    }

    private static void close(HttpResponse<InputStream> answer) {
        try {
            answer.body().close();
        } catch (IOException ignored) {
            // the answer was read
        }
    }

    /**
     * @throws ApiRefusedException {@code 550 5.5.0} when the envelope is not exactly the message's To, Cc and Bcc:
     *                             Graph sends to those and takes no other envelope
     */
    private static void requireOwnRecipients(GatedMessage message, Address[] recipients) throws MessagingException {
        Set<String> own = new HashSet<>();
        Address[] all = message.getAllRecipients();
        for (Address a : all == null ? new Address[0] : all) {
            own.add(((InternetAddress) a).getAddress().toLowerCase(Locale.ROOT));
        }
        Set<String> envelope = new HashSet<>();
        for (Address a : recipients) {
            envelope.add(((InternetAddress) a).getAddress().toLowerCase(Locale.ROOT));
        }
        if (!own.equals(envelope)) {
            throw new ApiRefusedException(550, "5.5.0 Microsoft Graph sends to a message's own To, Cc and Bcc only;"
                    + " this attempt is for " + envelope.size() + " of its " + own.size()
                    + " recipients: route the mail to an SMTP account");
        }
    }

}
