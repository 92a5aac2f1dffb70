package dev.mailqueue.dispatch.control;

import dev.mailqueue.log.control.LogText;
import dev.mailqueue.ses.control.SesSettings;
import jakarta.mail.Address;
import jakarta.mail.MessagingException;
import jakarta.mail.internet.InternetAddress;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.sesv2.SesV2Client;
import software.amazon.awssdk.services.sesv2.model.SendEmailRequest;
import software.amazon.awssdk.services.sesv2.model.SendEmailResponse;

import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * An account's relay through the Amazon SES v2 API: each mail is one {@code SendEmail} request with
 * {@code Content.Raw}, the queue's own message bytes (DKIM-signed as over SMTP, so nothing about the message
 * changes), the envelope recipients as the destination, and, on a VERP account, the mail's VERP address as the
 * address SES forwards bounces and complaints to ({@code FeedbackForwardingEmailAddress}). The request is signed by
 * the AWS SDK for Java v2 (SigV4) and made exactly once ({@code dev.mailqueue.ses.control.SesClients}).
 *
 * <p>The claimer's gate is awaited while the message is written to memory, before the request is made: the request
 * leaves only once the previous mail's outcome is durable, as the end of DATA does over SMTP. SES's answers map to
 * the delivery policy ({@link #refusal}, the error codes of the SES v2 API reference for {@code SendEmail} and its
 * common errors):
 * <ul>
 *   <li>{@code 200} with a {@code MessageId}: sent; the reply kept on the attempt is {@code 250 Ok <MessageId>}, as
 *       SES's own SMTP interface answers the end of DATA;</li>
 *   <li>throttling ({@code TooManyRequestsException} 429, {@code LimitExceededException},
 *       {@code ThrottlingException}): {@code 451 4.7.0}, tried again later, and the account slows down;</li>
 *   <li>the message refused ({@code MessageRejected}, {@code MailFromDomainNotVerifiedException},
 *       {@code BadRequestException}, {@code ValidationError}): {@code 554 5.6.0}, never tried again;</li>
 *   <li>the account unable to send any mail (credentials refused, 403; {@code AccountSuspendedException},
 *       {@code SendingPausedException}; the configuration set not found, 404): the account is unreachable, the mail
 *       waits with its attempts untouched or fails over, as when an SMTP server refuses the login;</li>
 *   <li>no connection (refused, unknown host, no route, connect timeout, TLS handshake failed): unreachable;</li>
 *   <li>the request written and no answer (read timeout, connection reset), or an answer of 500, 502 or 504 (the
 *       request may have been processed): in doubt, as after the end of DATA without a reply;</li>
 *   <li>503 and any other error: {@code 451 4.3.0}, tried again later.</li>
 * </ul>
 * SES takes no SMTPUTF8 address ({@link #offersSmtpUtf8()} is false) and at most {@value #MAX_RECIPIENTS}
 * recipients a message. Not thread safe: one claimer at a time; it holds no connection of its own (the SDK client's
 * pool does), so it is never kept in the idle pool.
 */
final class SesRelay extends ApiRelay {

    /** SES v2 SendEmail: at most 50 recipients a message (To, Cc and Bcc together; SES quotas). */
    static final int MAX_RECIPIENTS = 50;

    /**
     * The header fields never written to the relay: those Angus Mail's SMTP transport leaves out of DATA too. A Bcc
     * field would show every blind copy's address to every recipient: the blind recipients are in the destination
     * only.
     */
    private static final String[] NOT_WRITTEN = {"Bcc", "Content-Length"};

    /** Error codes after which the account cannot send any mail until an operator acts. */
    private static final Set<String> ACCOUNT_REFUSED = Set.of("AccountSuspendedException", "SendingPausedException",
            "AccessDeniedException", "InvalidClientTokenId", "UnrecognizedClientException", "InvalidSignatureException",
            "SignatureDoesNotMatch", "ExpiredTokenException", "IncompleteSignature", "RequestExpired", "NotAuthorized",
            "OptInRequired", "NotFoundException", "MissingAuthenticationToken");
    /** Error codes that mean "too fast": try again later, slower. */
    private static final Set<String> THROTTLED = Set.of("TooManyRequestsException", "LimitExceededException",
            "ThrottlingException", "Throttling");
    /** Error codes that refuse this message for good. */
    private static final Set<String> REJECTED = Set.of("MessageRejected", "MailFromDomainNotVerifiedException",
            "BadRequestException", "ValidationError", "ValidationException", "InvalidParameterValue");

    private final SesSettings settings;
    private final SesV2Client client;

    /**
     * @param account  the account's name
     * @param settings its SES settings
     * @param client   its SDK client, shared
     */
    SesRelay(String account, SesSettings settings, SesV2Client client) {
        super(account);
        this.settings = settings;
        this.client = client;
    }


    /**
     * Makes sure the account's credentials can be had (the SDK caches and renews them; an instance or container
     * role's are fetched here), so that a send that fails without them is told apart from one SES did not answer.
     *
     * @throws SmtpUnreachableException when no credentials could be had: nothing was sent
     */
    @Override
    public void open() throws SmtpUnreachableException {
        try {
            client.serviceClientConfiguration().credentialsProvider().resolveIdentity().join();
        } catch (RuntimeException e) {
            throw new SmtpUnreachableException("Amazon SES unusable: ", new MessagingException("no AWS credentials for"
                    + " account " + account() + ": " + LogText.escape(String.valueOf(rootCause(e).getMessage()))));
        }
    }




    /**
     * @return {@code 250 Ok <MessageId>} once SES took the message
     * @throws SmtpUnreachableException when SES could not be reached or refuses the account: SES has nothing of the
     *                                  message
     * @throws ApiRefusedException      when SES refused the message, as the SMTP reply of the same meaning
     * @throws MessagingException       without a reply code when the request was written and no answer came (the
     *                                  mail is in doubt), or when the claimer's gate did not open in time
     *                                  ({@link MarkNotRecordedException}: nothing was sent)
     */
    @Override
    public SmtpReply send(GatedMessage message, Address[] recipients) throws MessagingException {
        if (recipients.length > MAX_RECIPIENTS) {
            throw new ApiRefusedException(550, "5.5.3 Amazon SES takes at most " + MAX_RECIPIENTS
                    + " recipients a message, this one has " + recipients.length
                    + ": split it, or route it to an SMTP account");
        }
        List<String> to = new ArrayList<>(recipients.length);
        for (Address recipient : recipients) {
            to.add(((InternetAddress) recipient).getAddress());
        }
        byte[] raw = bytes(message, NOT_WRITTEN);
        SendEmailRequest.Builder request = SendEmailRequest.builder()
                .destination(d -> d.toAddresses(to))
                .content(c -> c.raw(r -> r.data(SdkBytes.fromByteArrayUnsafe(raw))));
        if (settings.configurationSet() != null) {
            request.configurationSetName(settings.configurationSet());
        }
        if (message.envelopeSender() != null) {
            request.feedbackForwardingEmailAddress(message.envelopeSender());
        }
        try {
            SendEmailResponse answer = client.sendEmail(request.build());
            return new SmtpReply(250, "250 Ok " + answer.messageId());
        } catch (SdkException e) {
            throw refusal(account(), e);
        } finally {
            used();
        }
    }

    /**
     * @param account the account, named in the text
     * @param e       what the SDK threw for one {@code SendEmail} request that was made
     * @return the failure as the delivery policy reads it: unreachable, refused with a reply, or without a reply (in
     *         doubt, since the request was written)
     */
    static MessagingException refusal(String account, SdkException e) {
        if (e instanceof AwsServiceException answered) {
            int status = answered.statusCode();
            String code = answered.awsErrorDetails() == null ? null : answered.awsErrorDetails().errorCode();
            String text = "Amazon SES answered " + status + (code == null ? "" : " " + code) + ": "
                    + LogText.escape(String.valueOf(answered.awsErrorDetails() == null ? answered.getMessage()
                    : answered.awsErrorDetails().errorMessage()));
            if (status == 403 || ACCOUNT_REFUSED.contains(code)) {
                return new SmtpUnreachableException("Amazon SES refuses the account: ", new ApiRefusedException(454,
                        "4.7.0 " + text));
            }
            if (status == 429 || THROTTLED.contains(code)) {
                return new ApiRefusedException(451, "4.7.0 " + text);
            }
            if (REJECTED.contains(code)) {
                return new ApiRefusedException(554, "5.6.0 " + text);
            }
            if (status == 500 || status == 502 || status == 504) {
                return new MessagingException("no sure answer from Amazon SES for account " + account + ": " + text);
            }
            return new ApiRefusedException(451, "4.3.0 " + text);
        }
        Throwable cause = rootCause(e);
        String text = "account " + account + ": " + LogText.escape(String.valueOf(cause.getMessage()));
        if (notConnected(e)) {
            return new SmtpUnreachableException("Amazon SES unreachable: ", new MessagingException(text,
                    e instanceof SdkClientException ? (Exception) e : null));
        }
        return new MessagingException("no answer from Amazon SES, " + text);
    }

    /** @return true when the chain shows that no connection was made, so no byte of the request left */
    private static boolean notConnected(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ConnectException || t instanceof UnknownHostException || t instanceof NoRouteToHostException
                    || t instanceof javax.net.ssl.SSLHandshakeException
                    || t.getClass().getName().equals("org.apache.hc.client5.http.ConnectTimeoutException")) {
                return true;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }

    private static Throwable rootCause(Throwable e) {
        Throwable t = e;
        for (int depth = 0; t.getCause() != null && t.getCause() != t && depth < 20; depth++) {
            t = t.getCause();
        }
        return t;
    }

}
