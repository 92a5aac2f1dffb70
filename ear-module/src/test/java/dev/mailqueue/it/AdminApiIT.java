package dev.mailqueue.it;

import dev.mailqueue.api.AttemptView;
import dev.mailqueue.api.EnqueueReceipt;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.api.MailView;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The operator's REST API (/api/admin) against the running queue: search by filter with paging and
 * sorting; requeue failed mail so it is delivered; cancel and delete by filter, reporting the rows
 * changed; single-mail actions refused in the wrong state; SENDING rows never touched; the attempt log;
 * the statistics. Each test marks its mails with a recipient domain of its own.
 */
class AdminApiIT extends QueueServerIT {

    @Test
    void searchFiltersPagesAndSorts() {
        String domain = marker();
        Instant before = Instant.now().minusSeconds(1);
        List<EnqueueReceipt> queued = enqueueLater(domain, 3);

        Map<String, Object> all = search("recipient=" + domain);
        assertThat(total(all)).isEqualTo(3);
        assertThat(ids(all)).as("newest first by default").containsExactly(
                queued.get(2).getId(), queued.get(1).getId(), queued.get(0).getId());

        Map<String, Object> firstPage = search("recipient=" + domain + "&size=2&page=0&sort=createdAt,asc");
        assertThat(total(firstPage)).isEqualTo(3);
        assertThat(ids(firstPage)).containsExactly(queued.get(0).getId(), queued.get(1).getId());
        assertThat(ids(search("recipient=" + domain + "&size=2&page=1&sort=createdAt,asc")))
                .containsExactly(queued.get(2).getId());

        assertThat(total(search("recipient=" + domain + "&status=QUEUED,HELD&sender=alice@sender"))).isEqualTo(3);
        assertThat(total(search("recipient=" + domain + "&status=FAILED"))).isZero();
        assertThat(total(search("recipient=" + domain + "&enqueuedBy=sender&createdFrom=" + before))).isEqualTo(3);
        assertThat(total(search("recipient=" + domain + "&createdTo=" + before))).isZero();
        assertThat(total(search("recipient=" + domain + "&id=" + queued.get(1).getId()))).isEqualTo(1);
        assertThat(total(search("recipient=" + domain + "&bounced=true"))).isZero();
        assertThat(total(search("recipient=%25"))).as("wildcards are literal").isZero();
        assertThat(ids(search("recipient=" + domain + "&subject=LATER%201"))).as("subject words, any case")
                .containsExactly(queued.get(1).getId());
        assertThat(total(search("recipient=" + domain + "&subject=1%20%20later"))).as("in any order").isEqualTo(1);
        String account = QueueApi.find(queued.get(0).getId()).getAccount();
        assertThat(total(search("recipient=" + domain + "&account=" + account))).isEqualTo(3);
        assertThat(total(search("recipient=" + domain + "&account=no-such-account"))).isZero();

        for (String bad : List.of("sort=subject", "size=501", "status=LOST", "createdFrom=yesterday", "bounced=maybe")) {
            HttpResponse<String> refused = QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE, "/api/admin/mails?" + bad);
            assertThat(refused.statusCode()).as(bad).isEqualTo(400);
            assertThat(refused.headers().firstValue("Content-Type")).hasValueSatisfying(
                    type -> assertThat(type).startsWith("application/problem+json"));
            assertThat(refused.body()).contains("\"field\":\"" + bad.substring(0, bad.indexOf('=')) + "\"");
        }
    }

    @Test
    void failedMailRequeuedByFilterIsDeliveredAndTheCountIsReported() {
        String domain = marker();
        List<EnqueueReceipt> doomed = enqueueLater(domain, 2);
        EnqueueReceipt bystander = QueueApi.enqueue(new MailRequest().from("alice@sender.example")
                .to("later@" + domain).subject("not yet").text("x").notBefore(Instant.now().plusSeconds(3600)));
        doomed.forEach(r -> failAs(r, 451)); // a transient refusal, attempts used up

        Map<String, Object> failed = search("recipient=" + domain + "&status=FAILED&errorText=refused+by+the+probe&bounced=false");
        assertThat(total(failed)).isEqualTo(2);

        assertThat(bulk("requeue", "{\"statuses\":[\"FAILED\",\"QUEUED\"],\"recipient\":\"" + domain + "\"}"))
                .as("only the FAILED ones").isEqualTo(2);

        for (EnqueueReceipt r : doomed) {
            MailView sent = QueueApi.awaitStatus(r.getId(), MailStatus.SENT, Duration.ofSeconds(30));
            assertThat(sent.getAttempts()).extracting(AttemptView::getOutcome).containsExactly("FAILED", "SENT");
            await().atMost(Duration.ofSeconds(10)).until(() -> SMTP.countWithMessageId(r.getMessageId()) == 1);
        }
        List<AttemptView> log = attempts(doomed.get(0).getId());
        assertThat(log).hasSize(2);
        assertThat(QueueApi.find(bystander.getId()).getStatus()).isEqualTo(MailStatus.QUEUED);

        Map<String, Object> stats = QueueApi.jsonObject(QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE,
                "/api/admin/statistics").body());
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> hours = (List<Map<String, Object>>) stats.get("hours");
        assertThat(hours).hasSize(24);
        assertThat(((Number) hours.get(23).get("sent")).longValue()).as("sent this hour").isGreaterThanOrEqualTo(2);
    }

    @Test
    void onlyTheMailsThatBouncedAreResent() {
        String domain = marker();
        List<EnqueueReceipt> mails = enqueueLater(domain, 2);
        EnqueueReceipt bounced = mails.get(0);
        EnqueueReceipt deferred = mails.get(1);
        failAs(bounced, 550);  // RFC 5321 4.2.1: 5yz, permanent: the mail bounced
        failAs(deferred, 421); // 4yz, transient

        assertThat(ids(search("recipient=" + domain + "&bounced=true"))).containsExactly(bounced.getId());
        assertThat(ids(search("recipient=" + domain + "&bounced=false"))).containsExactly(deferred.getId());
        assertThat(bulk("requeue", "{\"statuses\":[\"FAILED\"],\"bounced\":true,\"recipient\":\"" + domain + "\"}"))
                .isEqualTo(1);

        QueueApi.awaitStatus(bounced.getId(), MailStatus.SENT, Duration.ofSeconds(30));
        await().atMost(Duration.ofSeconds(10)).until(() -> SMTP.countWithMessageId(bounced.getMessageId()) == 1);
        assertThat(QueueApi.find(deferred.getId()).getStatus()).isEqualTo(MailStatus.FAILED);
        assertThat(SMTP.countWithMessageId(deferred.getMessageId())).isZero();
    }

    @Test
    void cancelAndDeleteByFilterReportRowsChangedAndSingleActionsRespectTheStatus() {
        String domain = marker();
        List<EnqueueReceipt> queued = enqueueLater(domain, 3);
        String filter = "{\"recipient\":\"" + domain + "\"}";

        assertThat(bulk("cancel", filter)).isEqualTo(3);
        assertThat(bulk("cancel", filter)).as("already cancelled").isZero();
        assertThat(total(search("recipient=" + domain + "&status=CANCELLED"))).isEqualTo(3);

        long one = queued.get(0).getId();
        HttpResponse<String> requeued = QueueApi.sendAs(TestUser.ADMIN, "POST", "/api/admin/mails/" + one + "/requeue");
        assertThat(requeued.statusCode()).as(requeued.body()).isEqualTo(200);
        assertThat(QueueApi.find(one).getStatus()).isEqualTo(MailStatus.QUEUED);
        assertThat(QueueApi.find(one).getNotBefore()).isBefore(Instant.now().plusSeconds(5));
        MailView sent = QueueApi.awaitStatus(one, MailStatus.SENT, Duration.ofSeconds(30));
        HttpResponse<String> again = QueueApi.sendAs(TestUser.ADMIN, "POST", "/api/admin/mails/" + one + "/cancel");
        assertThat(again.statusCode()).as("a SENT mail cannot be cancelled").isEqualTo(409);
        assertThat(QueueApi.find(one).getSentAt()).isEqualTo(sent.getSentAt());

        HttpResponse<String> emptyFilter = QueueApi.postAs(TestUser.ADMIN, QueueApi.BASE, "/api/admin/mails/delete", "{}");
        assertThat(emptyFilter.statusCode()).as("a bulk action needs a criterion").isEqualTo(400);

        assertThat(bulk("delete", filter)).isEqualTo(3);
        assertThat(total(search("recipient=" + domain))).isZero();
        assertThat(QueueApi.sendAs(TestUser.ADMIN, "DELETE", "/api/admin/mails/" + one).statusCode()).isEqualTo(404);
        assertThat(QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE, "/api/admin/mails/" + one + "/attempts").statusCode())
                .isEqualTo(404);
    }

    @Test
    void bulkActionsNeverTouchASendingMail() {
        String domain = marker();
        EnqueueReceipt leased = enqueueLater(domain, 1).get(0);
        HttpResponse<String> lease = QueueApi.postForm("/probe/db?op=lease&id=" + leased.getId()
                + "&owner=busy-host/busy%231&expiresInMs=600000");
        assertThat(lease.body().strip()).isEqualTo("1");
        String filter = "{\"ids\":[" + leased.getId() + "]}";

        assertThat(bulk("requeue", filter)).isZero();
        assertThat(bulk("cancel", filter)).isZero();
        assertThat(bulk("delete", filter)).isZero();
        assertThat(QueueApi.sendAs(TestUser.ADMIN, "DELETE", "/api/admin/mails/" + leased.getId()).statusCode())
                .isEqualTo(409);
        assertThat(QueueApi.find(leased.getId()).getStatus()).isEqualTo(MailStatus.SENDING);
    }

    @Test
    void statisticsCountEveryStatusAndTheQueuesLag() {
        String domain = marker();
        enqueueLater(domain, 2);
        Map<String, Object> stats = QueueApi.jsonObject(QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE,
                "/api/admin/statistics").body());
        @SuppressWarnings("unchecked")
        Map<String, Object> counts = (Map<String, Object>) stats.get("countsByStatus");
        assertThat(counts).containsOnlyKeys("QUEUED", "SENDING", "SENT", "FAILED", "CANCELLED", "EXPIRED", "HELD",
                "SUPPRESSED");
        assertThat(((Number) counts.get("QUEUED")).longValue()).isGreaterThanOrEqualTo(2);
        Object lag = stats.get("oldestQueuedSeconds"); // the queue's lag: null while no queued mail is due
        assertThat(lag == null || ((Number) lag).longValue() >= 0).as("oldestQueuedSeconds: %s", lag).isTrue();
        assertThat((List<?>) stats.get("accounts")).as("per SMTP account, the default one among them")
                .anySatisfy(a -> assertThat(((Map<?, ?>) a).get("account")).isEqualTo("mailqueue"));
        assertThat(stats).containsKeys("topFailureReasons", "hours", "generatedAt", "dispatchPaused", "pausedAccounts");

        Map<String, Object> week = QueueApi.jsonObject(QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE,
                "/api/admin/statistics/series?range=week&account=mailqueue").body());
        assertThat(week).containsEntry("range", "week").containsEntry("account", "mailqueue");
        assertThat((List<?>) week.get("buckets")).hasSize(168).last().satisfies(b ->
                assertThat(((Number) ((Map<?, ?>) b).get("queued")).longValue()).isGreaterThanOrEqualTo(2));
        assertThat(QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE, "/api/admin/statistics/series?range=day").body())
                .contains("\"field\":\"range\"");
    }

    @Test
    @SuppressWarnings("unchecked")
    void aPausedAccountsMailWaitsQueuedUntilResumedThenArrives() {
        String account = "mailqueue"; // the default: mail that names no account goes through it
        assertThat(QueueApi.sendAs(TestUser.ADMIN, "POST", "/api/admin/accounts/no.such/pause").body())
                .contains("\"field\":\"name\"");
        EnqueueReceipt mail;
        try {
            HttpResponse<String> paused = QueueApi.sendAs(TestUser.ADMIN, "POST", "/api/admin/accounts/" + account + "/pause");
            assertThat(paused.statusCode()).as(paused.body()).isEqualTo(200);
            assertThat((List<Map<String, Object>>) QueueApi.jsonObject(paused.body()).get("accounts")).anySatisfy(a ->
                    assertThat(a).containsEntry("name", account).containsEntry("paused", true).containsEntry("pausedBy", "admin"));
            mail = QueueApi.enqueue(new MailRequest().from("alice@sender.example").to("r@" + marker())
                    .subject("paused").text("x"));
            await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5)) // six dispatch intervals
                    .until(() -> QueueApi.find(mail.getId()).getStatus() == MailStatus.QUEUED);
            MailView waiting = QueueApi.find(mail.getId());
            assertThat(waiting.getAttempts()).isEmpty();
            assertThat(waiting.getAttemptsRemaining()).as("no attempt spent").isEqualTo(3);
        } finally {
            HttpResponse<String> resumed = QueueApi.sendAs(TestUser.ADMIN, "POST", "/api/admin/accounts/" + account + "/resume");
            assertThat(resumed.statusCode()).as(resumed.body()).isEqualTo(200);
        }
        QueueApi.awaitStatus(mail.getId(), MailStatus.SENT, Duration.ofSeconds(30));
        await().atMost(Duration.ofSeconds(10)).until(() -> SMTP.countWithMessageId(mail.getMessageId()) == 1);
    }

    @Test
    @SuppressWarnings("unchecked")
    void theConsoleReadsOneMailWithItsBodiesAndDownloadsAnAttachment() {
        String domain = marker();
        EnqueueReceipt mail = QueueApi.enqueue(new MailRequest().from("alice@sender.example").to("to@" + domain)
                .bcc("bcc@" + domain).subject("detail").text("the text").html("<p>the html</p>")
                .attach("Grüße; \"März\".txt", "text/plain; charset=UTF-8", "zwölf Boxkämpfer".getBytes(StandardCharsets.UTF_8))
                .notBefore(Instant.now().plusSeconds(3600)));

        HttpResponse<String> read = QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE, "/api/admin/mails/" + mail.getId());
        assertThat(read.statusCode()).as(read.body()).isEqualTo(200);
        Map<String, Object> detail = QueueApi.jsonObject(read.body());
        assertThat(detail).containsEntry("text", "the text").containsEntry("html", "<p>the html</p>")
                .containsEntry("status", "QUEUED").containsKeys("createdAt", "attempts").doesNotContainKey("firstAttemptAt");
        assertThat((List<Map<String, Object>>) detail.get("recipientOutcomes")).extracting(r -> r.get("field") + ":"
                + r.get("status")).containsExactly("to:PENDING", "bcc:PENDING");
        assertThat((List<Map<String, Object>>) detail.get("attachments")).singleElement().satisfies(a -> assertThat(a)
                .containsEntry("filename", "Grüße; \"März\".txt").extractingByKey("sizeBytes")
                .satisfies(n -> assertThat(((Number) n).longValue()).isEqualTo(18)));

        HttpResponse<String> file = QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE, "/api/admin/mails/" + mail.getId() + "/attachments/0");
        assertThat(file.statusCode()).isEqualTo(200);
        assertThat(file.body()).isEqualTo("zwölf Boxkämpfer");
        assertThat(file.headers().firstValue("Content-Type")).hasValueSatisfying(t ->
                assertThat(t.replace(" ", "")).isEqualToIgnoringCase("text/plain;charset=UTF-8"));
        assertThat(file.headers().firstValue("Content-Disposition"))
                .hasValue("attachment; filename*=UTF-8''Gr%C3%BC%C3%9Fe%3B%20%22M%C3%A4rz%22.txt");
        assertThat(file.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
        HttpResponse<String> events = QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE, "/api/admin/mails/" + mail.getId() + "/events");
        assertThat(events.statusCode()).as(events.body()).isEqualTo(200);
        assertThat(events.body()).startsWith("[");
        for (String missing : List.of(mail.getId() + "/attachments/1", "999999999/attachments/0", "999999999",
                "999999999/events")) {
            HttpResponse<String> none = QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE, "/api/admin/mails/" + missing);
            assertThat(none.statusCode()).as(missing).isEqualTo(404);
            assertThat(none.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("application/problem+json"));
        }
    }

    /**
     * A mail sent in one SMTP transaction, as the sender's GET and the console's mail page read it: no count of
     * attempts left (it has left the queue), each recipient with the reply its attempt got, and the sent event's
     * reply text without the code it carries beside it (not "250 250 OK").
     */
    @Test
    @SuppressWarnings("unchecked")
    void aSentMailShowsNoAttemptsLeftAndTheReplyThatSentItOnceEach() {
        String domain = marker();
        EnqueueReceipt mail = QueueApi.enqueue(new MailRequest().from("alice@sender.example").to("to@" + domain)
                .cc("cc@" + domain).subject("sent whole").text("x"));
        QueueApi.awaitStatus(mail.getId(), MailStatus.SENT, Duration.ofSeconds(30));

        Map<String, Object> own = QueueApi.jsonObject(QueueApi.get("/api/mails/" + mail.getId()).body());
        assertThat(own).containsEntry("status", "SENT").doesNotContainKey("attemptsRemaining");
        HttpResponse<String> read = QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE, "/api/admin/mails/" + mail.getId());
        assertThat(read.statusCode()).as(read.body()).isEqualTo(200);
        Map<String, Object> detail = QueueApi.jsonObject(read.body());
        assertThat(detail).doesNotContainKey("attemptsRemaining");
        Map<String, Object> attempt = ((List<Map<String, Object>>) detail.get("attempts")).get(0);
        assertThat(((Number) attempt.get("smtpReplyCode")).intValue()).isEqualTo(250);
        assertThat((List<Map<String, Object>>) detail.get("recipientOutcomes")).extracting(r -> r.get("field"),
                        r -> r.get("status"), r -> ((Number) r.get("replyCode")).intValue(), r -> r.get("replyText"))
                .as("the reply of the attempt that sent it").containsExactly(
                        org.assertj.core.groups.Tuple.tuple("to", "SENT", 250, attempt.get("smtpReplyText")),
                        org.assertj.core.groups.Tuple.tuple("cc", "SENT", 250, attempt.get("smtpReplyText")));
        assertThat((List<Map<String, Object>>) detail.get("recipientOutcomes")).allSatisfy(r -> assertThat(r)
                .containsEntry("perRecipient", false).containsEntry("updatedAt", attempt.get("finishedAt"))
                .containsKey("address"));

        HttpResponse<String> events = QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE, "/api/admin/mails/" + mail.getId() + "/events");
        Map<String, Object> sent = QueueApi.jsonList(events.body()).stream().filter(e -> "sent".equals(e.get("type")))
                .findFirst().orElseThrow(() -> new AssertionError("no sent event: " + events.body()));
        Map<String, Object> reply = (Map<String, Object>) sent.get("reply");
        assertThat(((Number) reply.get("code")).intValue()).isEqualTo(250);
        assertThat((String) reply.get("text")).as("the text after the code").isNotBlank().doesNotStartWith("250");
    }

    @Test
    void aViewerReadsTheConsoleAndMayNotAct() {
        for (String path : List.of("/api/admin/statistics", "/api/admin/dispatch", "/api/admin/mails?size=1",
                "/api/admin/statistics/series?range=hour", "/admin/")) {
            HttpResponse<String> read = QueueApi.getAs(TestUser.VIEWER, QueueApi.BASE, path);
            assertThat(read.statusCode()).as(path + ": " + read.body()).isEqualTo(200);
        }
        for (String path : List.of("/api/admin/dispatch/pause", "/api/admin/accounts/mailqueue/pause")) {
            HttpResponse<String> refused = QueueApi.sendAs(TestUser.VIEWER, "POST", path);
            assertThat(refused.statusCode()).as(path).isEqualTo(403);
        }
        assertThat(QueueApi.postAs(TestUser.VIEWER, QueueApi.BASE, "/api/admin/mails/cancel", "{\"recipient\":\"x\"}")
                .statusCode()).isEqualTo(403);
        assertThat(QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE, "/api/admin/dispatch").body())
                .as("nothing paused").doesNotContain("\"paused\":true");
    }

    /** Leaves a QUEUED mail FAILED after one attempt the SMTP server answered with {@code code}. */
    private static void failAs(EnqueueReceipt mail, int code) {
        HttpResponse<String> failed = QueueApi.postForm("/probe/db?op=fail&id=" + mail.getId() + "&code=" + code);
        assertThat(failed.body().strip()).as(failed.body()).isEqualTo("1");
    }

    private static String marker() {
        return "adm-" + UUID.randomUUID().toString().substring(0, 8) + ".example";
    }

    private static List<EnqueueReceipt> enqueueLater(String domain, int n) {
        List<EnqueueReceipt> receipts = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            receipts.add(QueueApi.enqueue(new MailRequest().from("alice@sender.example").to("r" + i + "@" + domain)
                    .subject("later " + i).text("x").notBefore(Instant.now().plusSeconds(3600))));
        }
        return receipts;
    }

    private static Map<String, Object> search(String query) {
        HttpResponse<String> response = QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE, "/api/admin/mails?" + query);
        assertThat(response.statusCode()).as("%s: %s", query, response.body()).isEqualTo(200);
        return QueueApi.jsonObject(response.body());
    }

    private static long total(Map<String, Object> page) {
        return ((Number) page.get("total")).longValue();
    }

    @SuppressWarnings("unchecked")
    private static List<Long> ids(Map<String, Object> page) {
        return ((List<Map<String, Object>>) page.get("mails")).stream()
                .map(m -> ((Number) m.get("id")).longValue()).toList();
    }

    private static int bulk(String action, String filter) {
        HttpResponse<String> response = QueueApi.postAs(TestUser.ADMIN, QueueApi.BASE, "/api/admin/mails/" + action, filter);
        assertThat(response.statusCode()).as("%s %s: %s", action, filter, response.body()).isEqualTo(200);
        return ((Number) QueueApi.jsonObject(response.body()).get("changed")).intValue();
    }

    private static List<AttemptView> attempts(long id) {
        HttpResponse<String> response = QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE, "/api/admin/mails/" + id + "/attempts");
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return QueueApi.attempts(response.body());
    }
}
