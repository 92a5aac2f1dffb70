package dev.mailqueue.it;

import dev.mailqueue.api.EnqueueReceipt;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.api.MailStatus;
import jakarta.mail.internet.MimeMessage;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One-click unsubscribe (RFC 8058) end to end: a mail of a list arrives with its recipient's own
 * List-Unsubscribe link and List-Unsubscribe-Post; opening the link changes nothing; a POST to it without
 * any login, as a mailbox provider sends it, suppresses that address for that list; the next mail of the
 * list to the address is SUPPRESSED at enqueue while mail of another list still goes out; a forged link is
 * a 404 and changes nothing. The links stay the queue's: a sender reads no link back from the API, and may
 * name only a list it owns ({@code mailqueue.security.allowed-lists.<user>}).
 */
class UnsubscribeIT extends QueueServerIT {

    /** Unique per run: the suppression list outlives a run on a database that is kept (Derby in target/). */
    private static final String RUN = Long.toString(System.currentTimeMillis(), 36);
    private static final String READER = "reader." + RUN + "@list.example";
    private static final String OTHER = "other.reader." + RUN + "@list.example";
    private static final HttpClient BROWSER = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @Test
    void aMailboxProvidersOneClickPostUnsubscribesTheRecipientFromThatListOnly() throws Exception {
        EnqueueReceipt sent = QueueApi.enqueue(new MailRequest().from("news@sender.example").to(READER, OTHER)
                .subject("Issue 7").text("This week's news.").perRecipient(true).unsubscribeList("weekly-news"));
        for (EnqueueReceipt copy : sent.getCopies()) {
            QueueApi.awaitStatus(copy.getId(), MailStatus.SENT, Duration.ofSeconds(30));
        }

        MimeMessage received = SMTP.inbox(READER).get(0);
        assertThat(QueueApi.getAs(TestUser.SENDER, QueueApi.BASE, "/api/mails/" + sent.getCopies().get(0).getId()).body())
                .as("the sender cannot read the signed link back").doesNotContainIgnoringCase("List-Unsubscribe")
                .doesNotContain("/api/unsubscribe/");
        assertThat(received.getHeader("List-Unsubscribe-Post", null)).isEqualTo("List-Unsubscribe=One-Click");
        String field = received.getHeader("List-Unsubscribe", null);
        assertThat(field).startsWith("<" + QueueApi.BASE + "/api/unsubscribe/").endsWith(">");
        String link = field.substring(1, field.length() - 1);
        String otherField = SMTP.inbox(OTHER).get(0).getHeader("List-Unsubscribe", null);
        assertThat(otherField).as("each recipient has a link of their own").isNotEqualTo(field);

        HttpResponse<String> page = BROWSER.send(HttpRequest.newBuilder(URI.create(link)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(page.statusCode()).as(page.body()).isEqualTo(200);
        assertThat(page.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/html"));
        assertThat(page.body()).contains(READER, "weekly-news", "<form method=\"post\">");
        assertThat(suppression(READER, "weekly-news").statusCode()).as("opening the link changes nothing").isEqualTo(404);

        HttpResponse<String> oneClick = oneClick(link);
        assertThat(oneClick.statusCode()).as(oneClick.body()).isEqualTo(200);
        assertThat(oneClick.body()).contains("Unsubscribed", READER);
        assertThat(oneClick(link).statusCode()).as("a repeat changes nothing and answers the same").isEqualTo(200);

        HttpResponse<String> entry = suppression(READER, "weekly-news");
        assertThat(entry.statusCode()).as(entry.body()).isEqualTo(200);
        assertThat(QueueApi.jsonObject(entry.body())).containsEntry("reason", "UNSUBSCRIBE")
                .containsEntry("list", "weekly-news").containsEntry("address", READER);
        assertThat(suppression(READER, null).statusCode()).as("not suppressed for all mail").isEqualTo(404);
        assertThat(suppression(OTHER, "weekly-news").statusCode()).as("the other reader stays").isEqualTo(404);
        Map<String, Object> stats = QueueApi.jsonObject(QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE, "/api/admin/statistics").body());
        @SuppressWarnings("unchecked")
        Map<String, Object> byReason = (Map<String, Object>) stats.get("suppressionsByReason");
        assertThat(byReason).containsOnlyKeys("HARD_BOUNCE", "SOFT_BOUNCE", "COMPLAINT", "UNSUBSCRIBE", "MANUAL", "ERASED");
        assertThat(((Number) byReason.get("UNSUBSCRIBE")).longValue()).as("the statistics count it").isGreaterThanOrEqualTo(1);

        EnqueueReceipt nextIssue = QueueApi.enqueue(new MailRequest().from("news@sender.example").to(READER)
                .subject("Issue 8").text("More news.").unsubscribeList("weekly-news"));
        assertThat(nextIssue.getStatus()).isEqualTo(MailStatus.SUPPRESSED);
        assertThat(nextIssue.getSuppressed()).containsExactly(READER);
        EnqueueReceipt offer = QueueApi.enqueue(new MailRequest().from("news@sender.example").to(READER)
                .subject("Offer").text("Another list.").unsubscribeList("offers"));
        EnqueueReceipt receipt = QueueApi.enqueue(new MailRequest().from("news@sender.example").to(READER)
                .subject("Your receipt").text("No list."));
        QueueApi.awaitStatus(offer.getId(), MailStatus.SENT, Duration.ofSeconds(30));
        QueueApi.awaitStatus(receipt.getId(), MailStatus.SENT, Duration.ofSeconds(30));
        assertThat(SMTP.inbox(READER)).as("the two after the unsubscribe may come in either order: claimers send in parallel")
                .extracting(MimeMessage::getSubject).containsExactlyInAnyOrder("Issue 7", "Offer", "Your receipt");
        assertThat(QueueApi.find(nextIssue.getId()).getStatus()).isEqualTo(MailStatus.SUPPRESSED);
    }

    @Test
    void aMailOfTheListThatWaitsInTheQueueIsNotSentAfterTheUnsubscribe() throws Exception {
        String late = "late.reader." + RUN + "@list.example";
        EnqueueReceipt first = QueueApi.enqueue(new MailRequest().from("news@sender.example").to(late)
                .subject("Monthly 1").text("Hello").unsubscribeList("monthly"));
        QueueApi.awaitStatus(first.getId(), MailStatus.SENT, Duration.ofSeconds(30));
        EnqueueReceipt scheduled = QueueApi.enqueue(new MailRequest().from("news@sender.example").to(late)
                .subject("Monthly 2").text("Hello again").unsubscribeList("monthly")
                .notBefore(java.time.Instant.now().plusSeconds(4)));
        assertThat(scheduled.getStatus()).isEqualTo(MailStatus.QUEUED);

        String field = SMTP.inbox(late).get(0).getHeader("List-Unsubscribe", null);
        assertThat(oneClick(field.substring(1, field.length() - 1)).statusCode()).isEqualTo(200);

        QueueApi.awaitStatus(scheduled.getId(), MailStatus.SUPPRESSED, Duration.ofSeconds(30));
        assertThat(QueueApi.find(scheduled.getId()).getRecipients()).singleElement()
                .satisfies(r -> assertThat(r.getStatus()).isEqualTo("SUPPRESSED"));
        assertThat(SMTP.inbox(late)).extracting(MimeMessage::getSubject).containsExactly("Monthly 1");
    }

    @Test
    void aForgedOrMalformedLinkIsA404AndChangesNothing() throws Exception {
        EnqueueReceipt sent = QueueApi.enqueue(new MailRequest().from("news@sender.example").to("victim." + RUN + "@list.example")
                .subject("Digest").text("Hello").unsubscribeList("digest"));
        QueueApi.awaitStatus(sent.getId(), MailStatus.SENT, Duration.ofSeconds(30));
        String field = SMTP.inbox("victim." + RUN + "@list.example").get(0).getHeader("List-Unsubscribe", null);
        String link = field.substring(1, field.length() - 1);
        String token = link.substring(link.lastIndexOf('/') + 1);
        String tag = token.substring(token.lastIndexOf('.'));
        String base = link.substring(0, link.lastIndexOf('/') + 1);
        String forged = base + Base64.getUrlEncoder().withoutPadding().encodeToString("digest\nsomeone@list.example".getBytes())
                + tag;

        for (String bad : new String[]{forged, base + "not-a-token", link.substring(0, link.length() - 3)}) {
            HttpResponse<String> answer = oneClick(bad);
            assertThat(answer.statusCode()).as(bad).isEqualTo(404);
            assertThat(answer.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).contains("problem+json"));
            HttpResponse<String> page = BROWSER.send(HttpRequest.newBuilder(URI.create(bad)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(page.statusCode()).isEqualTo(404);
        }
        assertThat(suppression("someone@list.example", "digest").statusCode()).isEqualTo(404);
        assertThat(suppression("victim." + RUN + "@list.example", "digest").statusCode()).isEqualTo(404);
    }

    @Test
    void aListMailToSeveralRecipientsInOneCopyIsA400NamingTheField() {
        long before = QueueApi.storedMails();
        HttpResponse<String> refused = QueueApi.post(QueueApi.toJson(new MailRequest().from("news@sender.example")
                .to(READER, OTHER).subject("s").text("t").unsubscribeList("weekly-news")));

        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(refused.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).contains("problem+json"));
        assertThat(refused.body()).contains("unsubscribeList", "perRecipient");
        assertThat(QueueApi.storedMails()).isEqualTo(before);
    }

    /**
     * The attack a per-sender list closes: another sender enqueues a copy per victim naming a list it does not
     * own, to read the victims' links back or to have them sent. It is refused naming the field, nothing is
     * queued, and the victims stay on the list.
     */
    @Test
    void aSenderMayNotNameAListItDoesNotOwn() {
        long before = QueueApi.storedMails();
        HttpResponse<String> refused = QueueApi.postAs(TestUser.OTHER_SENDER, QueueApi.BASE, "/api/mails",
                QueueApi.toJson(new MailRequest().from("only@other.example").to(READER, OTHER).perRecipient(true)
                        .subject("s").text("t").unsubscribeList("weekly-news")));

        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(403);
        assertThat(refused.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).contains("problem+json"));
        assertThat(refused.body()).contains("unsubscribeList", "mailqueue.security.allowed-lists.other-sender");
        assertThat(QueueApi.storedMails()).isEqualTo(before);
        HttpResponse<String> own = QueueApi.postAs(TestUser.OTHER_SENDER, QueueApi.BASE, "/api/mails",
                QueueApi.toJson(new MailRequest().from("only@other.example").to("own." + RUN + "@list.example")
                        .subject("s").text("t").unsubscribeList("other-news")));
        assertThat(own.statusCode()).as("its own list: " + own.body()).isEqualTo(202);
    }

    /** POSTs to the link as RFC 8058 §3.2 says a mailbox provider does: form body, no credentials, no Origin. */
    private static HttpResponse<String> oneClick(String link) throws Exception {
        return BROWSER.send(HttpRequest.newBuilder(URI.create(link))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("List-Unsubscribe=One-Click")).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> suppression(String address, String list) {
        return QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE, "/api/admin/suppressions/" + address
                + (list == null ? "" : "?list=" + list));
    }
}
