package dev.mailqueue.it;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.stubbing.Scenario;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import dev.mailqueue.api.AttemptView;
import dev.mailqueue.api.EnqueueReceipt;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.api.MailView;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.matching;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * An account that sends through Microsoft Graph {@code sendMail} ({@code mailqueue.account.graph.relay=graph}) with
 * the access token of its OAuth2 login, taken from a real authorization server ({@link AuthorizationServer}).
 * <b>Graph itself is a stub:</b> no local Graph exists, so WireMock (in the test JVM) answers as Graph's documentation
 * says {@code POST /v1.0/users/{id}/sendMail} with a MIME body answers: {@code 202 Accepted} with a
 * {@code request-id} header, and its error shape ({@code {"error": {"code", "message"}}}) with 400, 401, 429 (and
 * {@code Retry-After}) and 500. What the tests prove is the queue's side: the request it makes (the MIME message as
 * base64 {@code text/plain}, Bcc kept for Graph to read, the bearer token) and how each answer counts; not that
 * Graph takes it.
 */
@Tag(QueueServerIT.DATABASE_NEUTRAL)
class GraphAccountIT extends QueueServerIT {

    static final String MAILBOX = "sender@graph.mailqueue.test";
    private static final String SEND_MAIL = "/v1.0/users/sender%40graph.mailqueue.test/sendMail";
    private static final AuthorizationServer AUTHORIZATION = new AuthorizationServer(300, MAILBOX);
    private static WireMockServer graph;

    @BeforeAll
    static void startServers() throws Exception {
        AUTHORIZATION.start();
        graph = new WireMockServer(options().bindAddress("127.0.0.1").port(Integer.getInteger("it.graph.port", 3144)));
        graph.start();
    }

    @AfterAll
    static void stopServers() throws Exception {
        if (graph != null) {
            graph.stop();
        }
        AUTHORIZATION.stop();
    }

    @BeforeEach
    void forget() {
        graph.resetAll();
    }

    @Test
    void aMailLeavesAsMimeWithItsBccForGraphAndTheBearerToken() throws Exception {
        graph.stubFor(post(urlEqualTo(SEND_MAIL)).willReturn(accepted("5f1e2d3c-0000-4000-8000-00000000a001")));
        EnqueueReceipt receipt = QueueApi.enqueue(mail("through graph").to("ana@graph.example").cc("ben@graph.example")
                .bcc("cleo@graph.example"));

        MailView sent = QueueApi.awaitStatus(receipt.getId(), MailStatus.SENT, Duration.ofSeconds(30));

        assertThat(sent.getAttempts()).singleElement().satisfies(a -> {
            assertThat(a.getAccount()).isEqualTo("graph");
            assertThat(a.getSmtpReplyCode()).isEqualTo(250);
            assertThat(a.getSmtpReplyText()).contains("5f1e2d3c-0000-4000-8000-00000000a001");
        });
        graph.verify(1, postRequestedFor(urlEqualTo(SEND_MAIL)).withHeader("Content-Type", equalTo("text/plain"))
                .withHeader("Authorization", matching("Bearer eyJ[A-Za-z0-9_-]+\\.eyJ[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+")));
        LoggedRequest request = graph.findAll(postRequestedFor(urlEqualTo(SEND_MAIL))).get(0);
        String mime = new String(Base64.getDecoder().decode(request.getBodyAsString().strip()), StandardCharsets.UTF_8);
        String header = mime.split("\r\n\r\n", 2)[0];
        assertThat(header).containsPattern("(?m)^Message-ID: ").contains(receipt.getMessageId()).containsPattern("(?m)^To: .*ana@graph.example")
                .containsPattern("(?m)^Cc: .*ben@graph.example").containsPattern("(?m)^Bcc: .*cleo@graph.example");
        String payload = new String(Base64.getUrlDecoder().decode(request.getHeader("Authorization").split("\\.")[1]),
                StandardCharsets.UTF_8);
        assertThat(payload).as("the token's claims: asked for with Graph's scope, it is for Graph")
                .contains("\"sub\":\"" + MAILBOX + "\"").contains(AuthorizationServer.GRAPH_AUDIENCE)
                .doesNotContain("\"smtp\"");
    }

    @Test
    void aRefusedTokenIsReplacedAndTheMailLeavesOnItsFirstAttempt() throws Exception {
        graph.stubFor(post(urlEqualTo(SEND_MAIL)).inScenario("401").whenScenarioStateIs(Scenario.STARTED)
                .willReturn(error(401, "InvalidAuthenticationToken", "Access token has expired or is not yet valid."))
                .willSetStateTo("renewed"));
        graph.stubFor(post(urlEqualTo(SEND_MAIL)).inScenario("401").whenScenarioStateIs("renewed")
                .willReturn(accepted("5f1e2d3c-0000-4000-8000-00000000a002")));
        EnqueueReceipt receipt = QueueApi.enqueue(mail("token refused").to("dora@graph.example"));

        MailView sent = QueueApi.awaitStatus(receipt.getId(), MailStatus.SENT, Duration.ofSeconds(30));

        assertThat(sent.getAttempts()).extracting(AttemptView::getOutcome).containsExactly("SENT");
        List<LoggedRequest> requests = graph.findAll(postRequestedFor(urlEqualTo(SEND_MAIL)));
        assertThat(requests).hasSize(2);
        assertThat(requests.get(1).getHeader("Authorization")).as("a new token the second time")
                .isNotEqualTo(requests.get(0).getHeader("Authorization"));
    }

    @Test
    void throttledIsTriedAgainLaterAndARejectionFailsForGood() throws Exception {
        graph.stubFor(post(urlEqualTo(SEND_MAIL)).inScenario("429").whenScenarioStateIs(Scenario.STARTED)
                .willReturn(error(429, "ApplicationThrottled", "Application is over its MailboxConcurrency limit.")
                        .withHeader("Retry-After", "1"))
                .willSetStateTo("free"));
        graph.stubFor(post(urlEqualTo(SEND_MAIL)).inScenario("429").whenScenarioStateIs("free")
                .willReturn(accepted("5f1e2d3c-0000-4000-8000-00000000a003")));
        EnqueueReceipt throttled = QueueApi.enqueue(mail("throttled").to("eve@graph.example"));

        MailView sent = QueueApi.awaitStatus(throttled.getId(), MailStatus.SENT, Duration.ofSeconds(30));

        assertThat(sent.getAttempts()).extracting(AttemptView::getOutcome).containsExactly("FAILED", "SENT");
        assertThat(sent.getAttempts().get(0).getEnhancedStatus()).isEqualTo("4.7.0");
        assertThat(sent.getAttempts().get(0).getError()).contains("429", "ApplicationThrottled", "Retry-After 1");

        graph.resetAll();
        graph.stubFor(post(urlEqualTo(SEND_MAIL)).willReturn(error(400, "ErrorInvalidRecipients",
                "At least one recipient isn't valid.")));
        EnqueueReceipt rejected = QueueApi.enqueue(mail("rejected").to("fay@graph.example"));

        MailView failed = QueueApi.awaitStatus(rejected.getId(), MailStatus.FAILED, Duration.ofSeconds(30));

        assertThat(failed.getAttempts()).singleElement().satisfies(a -> {
            assertThat(a.getSmtpReplyCode()).isEqualTo(554);
            assertThat(a.getEnhancedStatus()).isEqualTo("5.6.0");
            assertThat(a.getError()).contains("ErrorInvalidRecipients");
        });
        graph.verify(1, postRequestedFor(urlEqualTo(SEND_MAIL)));
    }

    @Test
    void anAnswerOf500LeavesTheMailInDoubt() throws Exception {
        graph.stubFor(post(urlEqualTo(SEND_MAIL)).inScenario("500").whenScenarioStateIs(Scenario.STARTED)
                .willReturn(error(500, "UnknownError", "")).willSetStateTo("well"));
        graph.stubFor(post(urlEqualTo(SEND_MAIL)).inScenario("500").whenScenarioStateIs("well")
                .willReturn(accepted("5f1e2d3c-0000-4000-8000-00000000a004")));
        EnqueueReceipt receipt = QueueApi.enqueue(mail("500").to("gus@graph.example"));

        MailView sent = QueueApi.awaitStatus(receipt.getId(), MailStatus.SENT, Duration.ofSeconds(30));

        assertThat(sent.getAttempts()).extracting(AttemptView::getOutcome).containsExactly("IN_DOUBT", "SENT");
        assertThat(sent.getAttempts().get(0).getError()).contains("in doubt", "500", "UnknownError");
        graph.verify(2, postRequestedFor(urlEqualTo(SEND_MAIL)));
    }

    private static com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder accepted(String requestId) {
        return aResponse().withStatus(202).withHeader("request-id", requestId).withHeader("client-request-id", requestId);
    }

    private static com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder error(int status, String code,
                                                                                           String message) {
        return aResponse().withStatus(status).withHeader("Content-Type", "application/json")
                .withHeader("request-id", "5f1e2d3c-0000-4000-8000-0000000000" + status)
                .withBody("{\"error\":{\"code\":\"" + code + "\",\"message\":\"" + message + "\","
                        + "\"innerError\":{\"date\":\"2026-11-29T02:00:00\",\"request-id\":\"5f1e2d3c\"}}}");
    }

    private static MailRequest mail(String subject) {
        return new MailRequest().account("graph").from("news@sender.example").subject(subject)
                .text("sent through Microsoft Graph");
    }
}
