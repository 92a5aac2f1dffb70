package dev.mailqueue.it;

import dev.mailqueue.api.AttachmentView;
import dev.mailqueue.api.EnqueueReceipt;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.api.MailView;
import dev.mailqueue.it.apps.CallerServlet;
import jakarta.mail.Multipart;
import jakarta.mail.Part;
import jakarta.mail.internet.MimeMessage;
import jakarta.mail.internet.MimeUtility;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

/**
 * Attachments and custom header fields end to end: sent as JSON (base64 content) or through the remote
 * EJB, they arrive at the SMTP server as a multipart/mixed around the text and HTML alternative, with
 * each file's name and bytes and each header; and a request that breaks a content rule is refused with
 * problem details naming the field, storing nothing.
 */
class ContentIT extends QueueServerIT {

    @Test
    void attachmentsAndHeadersArriveAsMultipartMixedAroundTheAlternativeBody() throws Exception {
        byte[] pdf = new byte[300_000];
        new Random(42).nextBytes(pdf);
        String notes = "Grüße aus Köln ☃";
        String json = """
                {"from":"billing@shop.example","fromName":"Shop","replyTo":"support@shop.example",
                 "to":["customer@content.example"],"subject":"Your invoice",
                 "text":"Invoice attached.","html":"<p>Invoice attached.</p>",
                 "headers":{"List-Unsubscribe":"<mailto:unsubscribe@shop.example?subject=4711>","X-Campaign":"Frühling 2026"},
                 "attachments":[
                   {"filename":"Rechnung 4711 Müller.pdf","contentType":"application/pdf","content":"%s"},
                   {"filename":"notes.txt","contentType":"text/plain; charset=UTF-8","content":"%s"}]}"""
                .formatted(Base64.getEncoder().encodeToString(pdf),
                        Base64.getEncoder().encodeToString(notes.getBytes(StandardCharsets.UTF_8)));

        HttpResponse<String> response = QueueApi.post(json);

        assertThat(response.statusCode()).as(response.body()).isEqualTo(202);
        Map<String, Object> receipt = QueueApi.jsonObject(response.body());
        long id = ((Number) receipt.get("id")).longValue();
        assertThat(QueueApi.storedRows("MAIL_ATTACHMENT", id)).isEqualTo(2);
        assertThat(QueueApi.storedRows("MAIL_HEADER", id)).isEqualTo(2);
        MailView view = QueueApi.awaitStatus(id, MailStatus.SENT, Duration.ofSeconds(30));
        assertThat(view.getAttachments()).extracting(AttachmentView::getFilename, AttachmentView::getContentType,
                AttachmentView::getSizeBytes).containsExactly(
                tuple("Rechnung 4711 Müller.pdf", "application/pdf", 300_000L),
                tuple("notes.txt", "text/plain; charset=UTF-8", (long) notes.getBytes(StandardCharsets.UTF_8).length));
        assertThat(view.getHeaders()).containsExactly(
                entry("List-Unsubscribe", "<mailto:unsubscribe@shop.example?subject=4711>"), entry("X-Campaign", "Frühling 2026"));
        await().atMost(Duration.ofSeconds(10)).until(() -> !SMTP.inbox("customer@content.example").isEmpty());

        MimeMessage received = SMTP.inbox("customer@content.example").get(0);
        assertThat(received.getMessageID()).isEqualTo(receipt.get("messageId"));
        assertThat(received.getReplyTo()).extracting(Object::toString).containsExactly("support@shop.example");
        assertThat(received.getHeader("List-Unsubscribe", null)).isEqualTo("<mailto:unsubscribe@shop.example?subject=4711>");
        assertThat(MimeUtility.decodeText(received.getHeader("X-Campaign", null))).isEqualTo("Frühling 2026");

        assertThat(received.isMimeType("multipart/mixed")).as(received.getContentType()).isTrue();
        Multipart mixed = (Multipart) received.getContent();
        assertThat(mixed.getCount()).isEqualTo(3);
        Part body = mixed.getBodyPart(0);
        assertThat(body.isMimeType("multipart/alternative")).as(body.getContentType()).isTrue();
        Multipart alternative = (Multipart) body.getContent();
        assertThat(alternative.getBodyPart(0).isMimeType("text/plain")).isTrue();
        assertThat(((String) alternative.getBodyPart(0).getContent()).strip()).isEqualTo("Invoice attached.");
        assertThat(alternative.getBodyPart(1).isMimeType("text/html")).isTrue();

        Part invoice = mixed.getBodyPart(1);
        assertThat(invoice.isMimeType("application/pdf")).isTrue();
        assertThat(invoice.getDisposition()).isEqualTo(Part.ATTACHMENT);
        assertThat(MimeUtility.decodeText(invoice.getFileName())).isEqualTo("Rechnung 4711 Müller.pdf");
        assertThat(invoice.getInputStream().readAllBytes()).isEqualTo(pdf);
        Part text = mixed.getBodyPart(2);
        assertThat(text.getFileName()).isEqualTo("notes.txt");
        assertThat(text.getInputStream().readAllBytes()).isEqualTo(notes.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void copiesPerRecipientShareOneStoredFileAndKeepItWhenTheFirstCopyIsDeleted() throws Exception {
        byte[] file = new byte[200_000];
        new Random(7).nextBytes(file);
        String json = """
                {"from":"billing@shop.example","to":["p1@shared.example","p2@shared.example","p3@shared.example"],
                 "subject":"Shared file","text":"See attached.","perRecipient":true,"notBefore":"%s",
                 "attachments":[{"filename":"terms.bin","contentType":"application/octet-stream","content":"%s"}]}"""
                .formatted(Instant.now().plusSeconds(8), Base64.getEncoder().encodeToString(file));

        HttpResponse<String> response = QueueApi.post(json);

        assertThat(response.statusCode()).as(response.body()).isEqualTo(202);
        List<EnqueueReceipt> copies = QueueApi.receipt(response.body()).getCopies();
        assertThat(copies).hasSize(3);
        long first = copies.get(0).getId();
        assertThat(copies.stream().mapToLong(c -> QueueApi.storedRows("MAIL_ATTACHMENT", c.getId())).sum())
                .as("the file is stored once for the three copies").isEqualTo(1);

        // The operator deletes the first copy before it is due: the other two keep the file.
        assertThat(QueueApi.sendAs(TestUser.ADMIN, "DELETE", "/api/admin/mails/" + first).statusCode()).isEqualTo(204);
        for (EnqueueReceipt copy : copies.subList(1, 3)) {
            MailView view = QueueApi.awaitStatus(copy.getId(), MailStatus.SENT, Duration.ofSeconds(40));
            assertThat(view.getAttachments()).extracting(AttachmentView::getFilename).containsExactly("terms.bin");
        }
        for (String address : List.of("p2@shared.example", "p3@shared.example")) {
            await().atMost(Duration.ofSeconds(10)).until(() -> !SMTP.inbox(address).isEmpty());
            Multipart mixed = (Multipart) SMTP.inbox(address).get(0).getContent();
            assertThat(mixed.getBodyPart(1).getInputStream().readAllBytes()).as(address).isEqualTo(file);
        }
        assertThat(SMTP.inbox("p1@shared.example")).as("the deleted copy is not sent").isEmpty();
    }

    @Test
    void anAttachmentSentThroughTheRemoteEjbArrivesWithItsBytes() throws Exception {
        HttpResponse<String> response = QueueApi.postForm(
                "/caller/enqueue?outcome=commit&to=remote@content.example&subject=remote-attachment&attachment=data.bin");
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        long id = Long.parseLong(response.body().split(" ")[0]);

        QueueApi.awaitStatus(id, MailStatus.SENT, Duration.ofSeconds(30));
        await().atMost(Duration.ofSeconds(10)).until(() -> !SMTP.inbox("remote@content.example").isEmpty());
        MimeMessage received = SMTP.inbox("remote@content.example").get(0);
        assertThat(received.getHeader("X-Sent-By", null)).isEqualTo("caller.war");
        Multipart mixed = (Multipart) received.getContent();
        assertThat(mixed.getBodyPart(1).getFileName()).isEqualTo("data.bin");
        assertThat(mixed.getBodyPart(1).getInputStream().readAllBytes()).isEqualTo(CallerServlet.content());
    }

    @Test
    void aBlockedFileTypeThroughTheRemoteEjbIsAnInvalidMailExceptionNamingTheAttachment() {
        long mails = QueueApi.storedMails();

        HttpResponse<String> response = QueueApi.postForm(
                "/caller/enqueue?outcome=commit&to=remote@content.example&subject=blocked&attachment=setup.exe");

        assertThat(response.body()).startsWith("dev.mailqueue.api.InvalidMailException")
                .contains("attachments[0].filename").contains("blocked file type .exe");
        assertThat(QueueApi.storedMails()).isEqualTo(mails);
    }

    @Test
    void aBatchWithOneBlockedAttachmentIsRefusedWholeAndStoresNoMailAttachmentOrHeader() {
        long mails = QueueApi.storedMails();
        long attachments = QueueApi.storedRows("MAIL_ATTACHMENT", null);
        long headers = QueueApi.storedRows("MAIL_HEADER", null);
        MailRequest good = new MailRequest().from("bulk@shop.example").to("one@content.example").text("x")
                .attach("fine.pdf", "application/pdf", new byte[]{1, 2, 3}).header("X-Batch", "1");
        MailRequest bad = new MailRequest().from("bulk@shop.example").to("two@content.example").text("x")
                .attach("fine.pdf", "application/pdf", new byte[]{1}).attach("invoice.pdf.js", null, new byte[]{1})
                .header("X-Batch", "1");

        HttpResponse<String> response = QueueApi.postTo("/api/mails/batch",
                "[" + QueueApi.toJson(good) + "," + QueueApi.toJson(bad) + "]");

        assertThat(response.statusCode()).as(response.body()).isEqualTo(400);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/problem+json"));
        assertThat(response.body()).contains("[1].attachments[1].filename").doesNotContain("[0].");
        assertThat(QueueApi.storedMails()).as("mails").isEqualTo(mails);
        assertThat(QueueApi.storedRows("MAIL_ATTACHMENT", null)).as("attachments").isEqualTo(attachments);
        assertThat(QueueApi.storedRows("MAIL_HEADER", null)).as("headers").isEqualTo(headers);
    }

    @Test
    void attachmentsOverTheConfiguredTotalAreRefusedOnAttachments() {
        // The test server allows 1 MiB (mailqueue.attachments.max-total-bytes); the default is 10 MiB.
        long mails = QueueApi.storedMails();
        MailRequest tooLarge = new MailRequest().from("big@shop.example").to("big@content.example").text("x")
                .attach("a.bin", null, new byte[524_288]).attach("b.bin", null, new byte[524_289]);

        HttpResponse<String> response = QueueApi.post(QueueApi.toJson(tooLarge));

        assertThat(response.statusCode()).as(response.body()).isEqualTo(400);
        assertThat(response.body()).contains("\"field\":\"attachments\"")
                .contains("1048577 bytes").contains("limit of 1048576 bytes");
        assertThat(QueueApi.storedMails()).isEqualTo(mails);
    }

    @Test
    void headerInjectionAndOverridingAQueueHeaderAreRefusedNamingTheHeader() {
        long mails = QueueApi.storedMails();

        HttpResponse<String> injected = QueueApi.post("""
                {"from":"a@shop.example","to":["b@content.example"],"text":"x",
                 "headers":{"X-Tag":"a\\r\\nBcc: victim@evil.example"}}""");
        HttpResponse<String> overriding = QueueApi.post("""
                {"from":"a@shop.example","to":["b@content.example"],"text":"x","headers":{"from":"ceo@shop.example"}}""");
        HttpResponse<String> badName = QueueApi.post("""
                {"from":"a@shop.example","to":["b@content.example"],"text":"x","headers":{"X Tag":"x"}}""");
        HttpResponse<String> notBase64 = QueueApi.post("""
                {"from":"a@shop.example","to":["b@content.example"],"text":"x",
                 "attachments":[{"filename":"a.pdf","content":"not base64!"}]}""");

        assertThat(injected.statusCode()).isEqualTo(400);
        assertThat(injected.body()).contains("\"field\":\"headers.X-Tag\"").contains("CR, LF");
        assertThat(overriding.statusCode()).isEqualTo(400);
        assertThat(overriding.body()).contains("\"field\":\"headers.from\"").contains("set by the queue");
        assertThat(badName.statusCode()).isEqualTo(400);
        assertThat(badName.body()).contains("\"field\":\"headers.X Tag\"");
        assertThat(notBase64.statusCode()).isEqualTo(400);
        assertThat(notBase64.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/problem+json"));
        assertThat(QueueApi.storedMails()).isEqualTo(mails);
    }
}
