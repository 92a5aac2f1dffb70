package dev.mailqueue.it;

import dev.mailqueue.api.EnqueueReceipt;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.api.MailStatus;
import jakarta.mail.Message.RecipientType;
import jakarta.mail.internet.MimeMessage;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What a caller can ask of an enqueue beyond the mail itself: an idempotency key, so a repeated
 * request (a double-click on "Send", a retry after a timeout, two racing requests) queues one mail;
 * and one copy per recipient, each with its own row, Message-ID and status.
 */
class EnqueueOptionsIT extends QueueServerIT {

    @Test
    void aRepeatedIdempotencyKeyReturnsTheFirstMailWith200AndQueuesNothingMore() throws Exception {
        String key = UUID.randomUUID().toString();
        String json = QueueApi.toJson(mail("double-click@to.example"));
        long before = QueueApi.storedMails();

        HttpResponse<String> first = QueueApi.postWithKey(json, key);
        HttpResponse<String> second = QueueApi.postWithKey(json, key);

        assertThat(first.statusCode()).as(first.body()).isEqualTo(202);
        assertThat(second.statusCode()).as(second.body()).isEqualTo(200);
        EnqueueReceipt original = QueueApi.receipt(first.body());
        EnqueueReceipt repeat = QueueApi.receipt(second.body());
        assertThat(repeat.getId()).isEqualTo(original.getId());
        assertThat(repeat.getMessageId()).isEqualTo(original.getMessageId());
        assertThat(repeat.isDuplicate()).isTrue();
        assertThat(original.isDuplicate()).isFalse();
        assertThat(second.headers().firstValue("Location")).hasValueSatisfying(l -> l.endsWith("/" + original.getId()));
        assertThat(QueueApi.storedMails()).isEqualTo(before + 1);
        QueueApi.awaitStatus(original.getId(), MailStatus.SENT, Duration.ofSeconds(30));
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(4))
                .until(() -> SMTP.inbox("double-click@to.example").size() == 1);
    }

    @Test
    void anIdempotencyKeyBelongsToTheUserWhoUsedIt() {
        String key = UUID.randomUUID().toString();
        HttpResponse<String> mine = QueueApi.postWithKey(QueueApi.toJson(mail("mine@to.example")), key);
        HttpResponse<String> theirs = QueueApi.postWithKey(TestUser.OTHER_SENDER, QueueApi.toJson(new MailRequest()
                .from("only@other.example").to("theirs@to.example").subject("same key").text("x")), key);

        assertThat(mine.statusCode()).as(mine.body()).isEqualTo(202);
        assertThat(theirs.statusCode()).as("another user's key is not a repeat: %s", theirs.body()).isEqualTo(202);
        assertThat(QueueApi.receipt(theirs.body()).getId()).isNotEqualTo(QueueApi.receipt(mine.body()).getId());
    }

    @Test
    void racingDuplicatesQueueOneMailAndAllGetItsId() throws Exception {
        String key = UUID.randomUUID().toString();
        String json = QueueApi.toJson(mail("racer@to.example"));
        long before = QueueApi.storedMails();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Callable<HttpResponse<String>>> posts = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                posts.add(() -> QueueApi.postWithKey(json, key));
            }
            List<HttpResponse<String>> answers = new ArrayList<>();
            for (Future<HttpResponse<String>> f : pool.invokeAll(posts)) {
                answers.add(f.get());
            }
            assertThat(answers).extracting(HttpResponse::statusCode).as(answers.toString())
                    .containsOnly(200, 202).filteredOn(code -> code == 202).hasSize(1);
            assertThat(answers).extracting(a -> QueueApi.receipt(a.body()).getId()).containsOnly(
                    QueueApi.receipt(answers.get(0).body()).getId());
        } finally {
            pool.shutdownNow();
        }
        assertThat(QueueApi.storedMails()).isEqualTo(before + 1);
        await().atMost(Duration.ofSeconds(30)).until(() -> SMTP.inbox("racer@to.example").size() == 1);
    }

    @Test
    void theEjbFacadeTakesAnIdempotencyKeyToo() {
        String key = "order-42-confirmation-" + UUID.randomUUID();
        String[] first = callWithKey(key);
        String[] second = callWithKey(key);

        assertThat(first).hasSize(2);
        assertThat(second).containsExactly(first[0], first[1], "duplicate");
    }

    @Test
    void aMalformedIdempotencyKeyIsRefusedNamingTheField() {
        long before = QueueApi.storedMails();
        HttpResponse<String> response = QueueApi.postWithKey(QueueApi.toJson(mail("x@to.example")), "x".repeat(256));

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(response.body()).contains("\"field\":\"idempotencyKey\"").contains("at most 255");
        assertThat(QueueApi.storedMails()).isEqualTo(before);
    }

    @Test
    void onePerRecipientQueuesACopyForEachWithItsOwnMessageIdAndStatus() {
        EnqueueReceipt receipt = QueueApi.enqueue(new MailRequest().from("news@sender.example")
                .to("ann@to.example", "ben@to.example").cc("cid@to.example").bcc("dan@to.example")
                .subject("Your own copy").text("x").perRecipient(true));

        assertThat(receipt.getCopies()).hasSize(4);
        assertThat(receipt.getCopies().get(0).getId()).isEqualTo(receipt.getId());
        assertThat(receipt.getCopies()).extracting(EnqueueReceipt::getMessageId).doesNotHaveDuplicates();
        for (EnqueueReceipt copy : receipt.getCopies()) {
            QueueApi.awaitStatus(copy.getId(), MailStatus.SENT, Duration.ofSeconds(30));
            assertThat(QueueApi.find(copy.getId()).getCopyOf()).isEqualTo(receipt.getId());
        }
        for (String who : List.of("ann", "ben", "cid", "dan")) {
            String address = who + "@to.example";
            List<MimeMessage> inbox = SMTP.inbox(address);
            assertThat(inbox).as(address).hasSize(1);
            assertThat(recipients(inbox.get(0))).as("To shows only its own recipient").isEqualTo(address);
        }
    }

    private static String recipients(MimeMessage message) {
        try {
            return String.join(",", java.util.Arrays.stream(message.getRecipients(RecipientType.TO))
                    .map(Object::toString).toList())
                    + (message.getRecipients(RecipientType.CC) == null ? "" : "+cc");
        } catch (jakarta.mail.MessagingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String[] callWithKey(String key) {
        HttpResponse<String> response = QueueApi.postForm("/caller/enqueue?outcome=commit&to=ejb-key@to.example"
                + "&subject=keyed&key=" + key);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return response.body().strip().split(" ");
    }

    private static MailRequest mail(String to) {
        return new MailRequest().from("ops@sender.example").to(to).subject("once").text("x");
    }
}
