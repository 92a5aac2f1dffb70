package dev.mailqueue.dispatch.control;

import jakarta.mail.MessagingException;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.sesv2.model.AccountSuspendedException;
import software.amazon.awssdk.services.sesv2.model.MessageRejectedException;
import software.amazon.awssdk.services.sesv2.model.SesV2Exception;
import software.amazon.awssdk.services.sesv2.model.TooManyRequestsException;

import java.net.ConnectException;
import java.net.SocketTimeoutException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How SES's answers, as the AWS SDK reports them, map to the delivery policy: the SDK's own exception types, made
 * with its builders as its JSON protocol does from an answer's error code and status.
 */
class SesRelayTest {

    @Test
    void throttlingIsASlowDownToTryAgainLater() {
        MessagingException e = SesRelay.refusal("ses", answer(TooManyRequestsException.builder(), 429,
                "TooManyRequestsException", "Maximum sending rate exceeded."));

        SmtpReply reply = SmtpReply.of(e);
        assertThat(e).isNotInstanceOf(SmtpUnreachableException.class);
        assertThat(FailureClass.of(reply)).isEqualTo(FailureClass.TRANSIENT);
        assertThat(reply.isSlowDown()).isTrue();
        assertThat(reply.text()).contains("Maximum sending rate exceeded");
    }

    @Test
    void aRejectedMessageFailsForGood() {
        MessagingException e = SesRelay.refusal("ses", answer(MessageRejectedException.builder(), 400,
                "MessageRejected", "Email address is not verified."));

        assertThat(FailureClass.of(SmtpReply.of(e))).isEqualTo(FailureClass.PERMANENT);
        assertThat(SmtpReply.of(e).enhancedStatus()).isEqualTo("5.6.0");
    }

    @Test
    void aSuspendedAccountOrRefusedCredentialsMakeTheAccountUnreachable() {
        assertThat(SesRelay.refusal("ses", answer(AccountSuspendedException.builder(), 400, "AccountSuspendedException",
                "suspended"))).isInstanceOf(SmtpUnreachableException.class);
        assertThat(SesRelay.refusal("ses", answer(SesV2Exception.builder(), 403, "UnrecognizedClientException",
                "The security token included in the request is invalid."))).isInstanceOf(SmtpUnreachableException.class);
    }

    @Test
    void noConnectionIsUnreachableButALostOrAmbiguousAnswerHasNoReply() {
        assertThat(SesRelay.refusal("ses", SdkClientException.builder().message("Unable to execute HTTP request")
                .cause(new ConnectException("Connection refused")).build())).isInstanceOf(SmtpUnreachableException.class);

        MessagingException lost = SesRelay.refusal("ses", SdkClientException.builder().message("Unable to execute HTTP request")
                .cause(new SocketTimeoutException("Read timed out")).build());
        MessagingException timedOut = SesRelay.refusal("ses", ApiCallAttemptTimeoutException.create(3000));
        MessagingException internal = SesRelay.refusal("ses", answer(SesV2Exception.builder(), 500, "InternalFailure", "x"));
        for (MessagingException e : new MessagingException[]{lost, timedOut, internal}) {
            assertThat(e).isNotInstanceOf(SmtpUnreachableException.class);
            assertThat(SmtpReply.of(e)).as("no reply: in doubt once the request was written").isEqualTo(SmtpReply.NONE);
        }
    }

    @Test
    void unavailableOrAnUnknownErrorIsTriedAgainLater() {
        MessagingException e = SesRelay.refusal("ses", answer(SesV2Exception.builder(), 503, "ServiceUnavailable", "busy"));

        assertThat(FailureClass.of(SmtpReply.of(e))).isEqualTo(FailureClass.TRANSIENT);
        assertThat(SmtpReply.of(e).code()).isEqualTo(451);
    }

    private static SdkException answer(SesV2Exception.Builder builder, int status, String code, String message) {
        return builder.statusCode(status).message(message)
                .awsErrorDetails(AwsErrorDetails.builder().errorCode(code).errorMessage(message).build()).build();
    }
}
