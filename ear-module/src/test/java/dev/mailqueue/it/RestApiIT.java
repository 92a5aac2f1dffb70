package dev.mailqueue.it;

import dev.mailqueue.api.AttemptView;
import dev.mailqueue.api.EnqueueReceipt;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.api.MailView;
import jakarta.mail.Message.RecipientType;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;
import jakarta.mail.internet.MimeMultipart;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The REST API end to end: a mail posted to /api/mails arrives at the SMTP server as the caller
 * described it, and bad input is refused with problem details without touching what is queued.
 */
class RestApiIT extends QueueServerIT {

    @Test
    void postedMailArrivesWithItsEnvelopeHeadersPartsAndMessageId() throws Exception {
        MailRequest mail = new MailRequest()
                .from("alice@sender.example").fromName("Alice Ärger")
                .replyTo("replies@sender.example")
                .to("bob@to.example", "bert@to.example")
                .cc("carol@cc.example")
                .bcc("dave@bcc.example")
                .subject("Grüße from the queue")
                .text("Plain text part")
                .html("<p>HTML part</p>")
                .priority(7);

        HttpResponse<String> response = QueueApi.post(QueueApi.toJson(mail));
        assertThat(response.statusCode()).isEqualTo(202);
        Map<String, Object> receipt = QueueApi.jsonObject(response.body());
        long id = ((Number) receipt.get("id")).longValue();
        String messageId = (String) receipt.get("messageId");
        assertThat(response.headers().firstValue("Location")).hasValue(QueueApi.BASE + "/api/mails/" + id);
        assertThat(messageId).startsWith("<").endsWith("@sender.example>");

        MailView sent = QueueApi.awaitStatus(id, MailStatus.SENT, Duration.ofSeconds(30));
        assertThat(sent.getSentAt()).isNotNull();
        assertThat(sent.getMessageId()).isEqualTo(messageId);
        assertThat(sent.getAttempts()).singleElement().satisfies(attempt -> {
            assertThat(attempt.getOutcome()).isEqualTo("SENT");
            assertThat(attempt.getSmtpReplyCode()).isEqualTo(250);
            assertThat(attempt.getServerInstance()).endsWith("/" + SERVER_NAME);
        });

        // One delivery per envelope recipient: both To, the Cc and the Bcc mailbox.
        await().atMost(Duration.ofSeconds(10)).until(() -> SMTP.countWithMessageId(messageId) == 4);
        for (String recipient : List.of("bob@to.example", "bert@to.example", "carol@cc.example", "dave@bcc.example")) {
            assertThat(SMTP.inbox(recipient)).as("inbox of %s", recipient)
                    .extracting(SmtpCatcher::messageId).containsExactly(messageId);
        }

        MimeMessage received = SMTP.inbox("dave@bcc.example").get(0);
        assertThat(received.getMessageID()).isEqualTo(messageId);
        assertThat(received.getHeader("Return-Path", null)).isEqualTo("<alice@sender.example>");
        InternetAddress from = (InternetAddress) received.getFrom()[0];
        assertThat(from.getAddress()).isEqualTo("alice@sender.example");
        assertThat(from.getPersonal()).isEqualTo("Alice Ärger");
        assertThat(received.getReplyTo()).extracting(Object::toString).containsExactly("replies@sender.example");
        assertThat(received.getRecipients(RecipientType.TO)).extracting(Object::toString)
                .containsExactly("bob@to.example", "bert@to.example");
        assertThat(received.getRecipients(RecipientType.CC)).extracting(Object::toString)
                .containsExactly("carol@cc.example");
        assertThat(received.getHeader("Bcc")).as("Bcc must not be in the headers").isNull();
        assertThat(received.getSubject()).isEqualTo("Grüße from the queue");

        MimeMultipart alternative = (MimeMultipart) received.getContent();
        assertThat(alternative.getContentType()).startsWith("multipart/alternative");
        assertThat(alternative.getCount()).isEqualTo(2);
        assertThat(alternative.getBodyPart(0).isMimeType("text/plain")).isTrue();
        assertThat(((String) alternative.getBodyPart(0).getContent()).strip()).isEqualTo("Plain text part");
        assertThat(alternative.getBodyPart(1).isMimeType("text/html")).isTrue();
        assertThat(((String) alternative.getBodyPart(1).getContent()).strip()).isEqualTo("<p>HTML part</p>");
    }

    @Test
    void aBatchIsQueuedWholeAndEveryMailArrives() {
        String batch = "[" + String.join(",",
                QueueApi.toJson(new MailRequest().from("bulk@sender.example").to("one@batch.example").subject("b1").text("1")),
                QueueApi.toJson(new MailRequest().from("bulk@sender.example").to("two@batch.example").subject("b2").text("2")),
                QueueApi.toJson(new MailRequest().from("bulk@sender.example").to("three@batch.example").subject("b3").text("3")))
                + "]";

        HttpResponse<String> response = QueueApi.postTo("/api/mails/batch", batch);

        assertThat(response.statusCode()).as(response.body()).isEqualTo(202);
        List<EnqueueReceipt> receipts = QueueApi.receipts(response.body());
        assertThat(receipts).hasSize(3).extracting(EnqueueReceipt::getMessageId).doesNotHaveDuplicates();
        receipts.forEach(r -> QueueApi.awaitStatus(r.getId(), MailStatus.SENT, Duration.ofSeconds(30)));
        assertThat(SMTP.inbox("two@batch.example")).extracting(SmtpCatcher::messageId)
                .containsExactly(receipts.get(1).getMessageId());
    }

    @Test
    void aBatchWithOneBadMailIsRefusedWholeNamingTheMailsIndex() {
        long stored = QueueApi.storedMails();
        String batch = "[" + QueueApi.toJson(new MailRequest().from("bulk@sender.example").to("ok@batch.example").text("x"))
                + "," + QueueApi.toJson(new MailRequest().from("bulk@sender.example").to("not an address").text("x")) + "]";

        HttpResponse<String> response = QueueApi.postTo("/api/mails/batch", batch);

        assertThat(response.statusCode()).as(response.body()).isEqualTo(400);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/problem+json"));
        assertThat(response.body()).contains("[1].to[0]");
        assertThat(QueueApi.storedMails()).as("nothing of the batch is stored").isEqualTo(stored);
    }

    @Test
    void unknownMailIsA404Problem() {
        HttpResponse<String> response = QueueApi.get("/api/mails/987654321");
        assertThat(response.statusCode()).isEqualTo(404);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/problem+json"));
    }

    @Test
    void queuedMailCanBeCancelledOnceAndIsNeverSent() {
        EnqueueReceipt receipt = QueueApi.enqueue(new MailRequest().from("alice@sender.example")
                .to("cancel@to.example").subject("never").text("never sent")
                .notBefore(Instant.now().plusSeconds(3600)));

        HttpResponse<String> cancelled = QueueApi.send("DELETE", "/api/mails/" + receipt.getId());
        assertThat(cancelled.statusCode()).isEqualTo(200);
        assertThat(QueueApi.find(receipt.getId()).getStatus()).isEqualTo(MailStatus.CANCELLED);

        HttpResponse<String> again = QueueApi.send("DELETE", "/api/mails/" + receipt.getId());
        assertThat(again.statusCode()).isEqualTo(409);
        assertThat(((Number) QueueApi.jsonObject(again.body()).get("status")).intValue()).isEqualTo(409);
    }

    @Test
    void badInputIsRefusedWithProblemDetailsNamingTheFieldAndNothingIsStoredOrChanged() {
        EnqueueReceipt waiting = QueueApi.enqueue(new MailRequest().from("alice@sender.example")
                .to("waiting@to.example").subject("stays queued").text("later")
                .notBefore(Instant.now().plusSeconds(3600)));
        MailView before = QueueApi.find(waiting.getId());
        long stored = QueueApi.storedMails();

        assertRefused("{\"from\":\"alice@sender.example\",\"to\":[\"not an address\"],\"text\":\"x\"}", "to[0]");
        assertRefused("{\"from\":\"alice@sender.example\",\"to\":[\"bob@to.example\"],\"text\":\"x\","
                + "\"subject\":\"Hi\\r\\nBcc: victim@evil.example\"}", "subject");
        assertRefused("{\"from\":\"alice@sender.example\",\"to\":[],\"cc\":[],\"text\":\"x\"}", "to");
        assertRefused("{\"from\":\"alice@sender.example (Alice)\",\"to\":[\"bob@to.example\"],\"text\":\"x\"}", "from");
        assertRefused("{\"from\":\"alice@sender.example\",\"to\":[\"bob@to.example\"],\"text\":\""
                + "x".repeat(1_048_577) + "\"}", "text");
        assertRefused("{\"from\":\"alice@sender.example\",\"to\":[\"bob@to.example\"],\"text\":\"x\",\"priority\":10}",
                "priority");
        assertRefused("{\"from\": \"alice@sender.example\", \"to\": [", "");
        assertRefused("{\"from\":\"alice@sender.example\",\"to\":[\"bob@to.example\"],\"text\":\"x\",\"priority\":\"high\"}",
                "");
        assertRefused("", "");

        assertThat(QueueApi.storedMails()).as("rows in the queue").isEqualTo(stored);
        MailView after = QueueApi.find(waiting.getId());
        assertThat(after.getStatus()).isEqualTo(MailStatus.QUEUED);
        assertThat(after.getNotBefore()).isEqualTo(before.getNotBefore());
        assertThat(after.getAttemptsRemaining()).isEqualTo(before.getAttemptsRemaining());
        assertThat(after.getAttempts()).extracting(AttemptView::getOutcome).isEmpty();
    }

    private static void assertRefused(String body, String field) {
        HttpResponse<String> response = QueueApi.post(body);
        String shown = body.length() > 200 ? body.substring(0, 200) + "..." : body;
        assertThat(response.statusCode()).as("status for %s: %s", shown, response.body()).isEqualTo(400);
        assertThat(response.headers().firstValue("Content-Type")).as("type for %s", shown)
                .hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
        Map<String, Object> problem = QueueApi.jsonObject(response.body());
        assertThat(((Number) problem.get("status")).intValue()).isEqualTo(400);
        assertThat(problem.get("title")).isNotNull();
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> errors = (List<Map<String, Object>>) problem.get("errors");
        assertThat(errors).as("errors for %s", shown).isNotEmpty();
        if (!field.isEmpty()) {
            assertThat(errors).extracting(e -> e.get("field")).as("fields for %s", shown).contains(field);
        }
    }
}
