package dev.mailqueue.it;

import dev.mailqueue.api.EnqueueReceipt;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.api.MailStatus;
import org.junit.jupiter.api.Test;

import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Erasure through the admin API on the real server: a person's sent mail (with an attachment and a header field that
 * name them), the mail they sent, a queued mail to them and a mail to them among others all go, with their log and
 * parts; afterwards the probe, which reads every column of every table through the JDBC metadata (no code shared with
 * the erasure), finds their address nowhere, while it found it before; a later mail to them is suppressed, a mail
 * to someone else is sent; the receipt counts what went and names no address; bad requests are 400 problems and a
 * viewer may not erase.
 */
class ErasureIT extends QueueServerIT {

    @Test
    void anErasedAddressIsInNoColumnAfterwardsAndStaysSuppressed() {
        String person = "erase-" + UUID.randomUUID().toString().substring(0, 8) + "@shop.example";
        EnqueueReceipt toThem = QueueApi.enqueue(new MailRequest().from("orders@shop.example").to(person)
                .subject("your order").text("Dear " + person + ", thanks.")
                .attach("order.txt", "text/plain", ("bill to " + person).getBytes(StandardCharsets.UTF_8))
                .header("X-Customer", person));
        EnqueueReceipt fromThem = QueueApi.enqueue(new MailRequest().from(person).to("orders@shop.example")
                .subject("a question").text("from me"));
        EnqueueReceipt amongOthers = QueueApi.enqueue(new MailRequest().from("orders@shop.example")
                .to("other@erasure.example").cc(person.toUpperCase(Locale.ROOT)).subject("to several").text("x"));
        EnqueueReceipt queued = QueueApi.enqueue(new MailRequest().from("orders@shop.example").to(person)
                .subject("tomorrow").text("later").notBefore(Instant.now().plus(Duration.ofDays(1))));
        for (EnqueueReceipt sent : List.of(toThem, fromThem, amongOthers)) {
            QueueApi.awaitStatus(sent.getId(), MailStatus.SENT, Duration.ofSeconds(30));
        }
        assertThat(holding(person)).as("the control: the probe finds the address where it is")
                .contains("MAIL_MESSAGE.TO_ADDRESSES", "MAIL_MESSAGE.FROM_ADDRESS", "MAIL_MESSAGE.TEXT_BODY",
                        "MAIL_HEADER.HEADER_VALUE", "MAIL_ATTACHMENT.CONTENT");

        HttpResponse<String> refused = QueueApi.postAs(TestUser.VIEWER, QueueApi.BASE, "/api/admin/erasures",
                "{\"addresses\":[\"" + person + "\"]}");
        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(403);
        HttpResponse<String> invalid = QueueApi.postAs(TestUser.ADMIN, QueueApi.BASE, "/api/admin/erasures",
                "{\"addresses\":[\"" + person + "\", \"not an address\"]}");
        assertThat(invalid.statusCode()).as(invalid.body()).isEqualTo(400);
        assertThat(invalid.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/problem+json"));
        assertThat(invalid.body()).contains("addresses[1]").doesNotContain(person);
        assertThat(QueueApi.find(queued.getId()).getStatus()).as("a refused erasure changes nothing")
                .isEqualTo(MailStatus.QUEUED);

        HttpResponse<String> accepted = QueueApi.postAs(TestUser.ADMIN, QueueApi.BASE, "/api/admin/erasures",
                "{\"addresses\":[\"" + person.toUpperCase(Locale.ROOT) + "\"]}");
        assertThat(accepted.statusCode()).as(accepted.body()).isEqualTo(202);
        String location = accepted.headers().firstValue("Location").orElseThrow();
        String path = location.substring(location.indexOf("/api/"));
        Map<String, Object> receipt = await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                .until(() -> QueueApi.jsonObject(QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE, path).body()),
                        r -> r.get("completedAt") != null);
        assertThat(receipt).containsEntry("jobStatus", "COMPLETED").containsEntry("requestedBy", TestUser.ADMIN.name());
        assertThat(whole(receipt, "addresses")).isEqualTo(1);
        @SuppressWarnings("unchecked")
        Map<String, Object> counts = (Map<String, Object>) receipt.get("counts");
        assertThat(whole(counts, "mails")).as("mails in %s", counts).isEqualTo(4);
        assertThat(whole(counts, "cancelled")).as("the queued one").isEqualTo(1);
        assertThat(whole(counts, "attachments")).isEqualTo(1);
        assertThat(receipt.toString()).doesNotContain(person);

        for (EnqueueReceipt gone : List.of(toThem, fromThem, amongOthers, queued)) {
            assertThat(QueueApi.get("/api/mails/" + gone.getId()).statusCode()).isEqualTo(404);
        }
        assertThat(holding(person)).as("columns that still hold the address").isEmpty();

        EnqueueReceipt later = QueueApi.enqueue(new MailRequest().from("orders@shop.example").to(person)
                .subject("again").text("x"));
        EnqueueReceipt control = QueueApi.enqueue(new MailRequest().from("orders@shop.example")
                .to("other@erasure.example").subject("again").text("x"));
        QueueApi.awaitStatus(later.getId(), MailStatus.SUPPRESSED, Duration.ofSeconds(30));
        QueueApi.awaitStatus(control.getId(), MailStatus.SENT, Duration.ofSeconds(30));
    }

    private static long whole(Map<String, Object> json, String name) {
        return ((Number) json.get(name)).longValue();
    }

    /** @return the columns (TABLE.COLUMN) where the probe finds the address */
    private static List<String> holding(String address) {
        HttpResponse<String> response = QueueApi.get("/probe/db?op=holding&address="
                + URLEncoder.encode(address, StandardCharsets.UTF_8));
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return Arrays.stream(response.body().split("\\R")).map(String::strip).filter(s -> !s.isEmpty())
                .map(s -> s.toUpperCase(Locale.ROOT)).toList();
    }
}
