package dev.mailqueue.it;

import dev.mailqueue.api.EnqueueReceipt;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.api.MailView;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The retention job on the real server, started by its timer (every 5 s on the test server, keeping
 * the default 15 days, 3 mails a transaction): it deletes mails in a final state whose times all lie
 * more than 15 days back, with their attempts, attachments and headers, in several bounded chunks,
 * and reports the count in its exit status; a final mail of 14 days and old live or held mails stay.
 * The test server keeps content 13 days: the final mail of 14 days loses its bodies and attachment and keeps its
 * header, log and view, which says so, and the console refuses to requeue it; the others keep theirs.
 */
class RetentionIT extends QueueServerIT {

    @Test
    void finishedMailsOlderThanTheRetentionGoWithTheirPartsAndLiveOnesStay() {
        List<EnqueueReceipt> mails = new ArrayList<>();
        for (int i = 0; i < 9; i++) {
            mails.add(QueueApi.enqueue(new MailRequest().from("retention@shop.example").to("r" + i + "@retention.example")
                    .subject("retention " + i).text("x")
                    .attach("r" + i + ".txt", "text/plain", new byte[]{(byte) i}).header("X-Retention", Integer.toString(i))));
        }
        mails.forEach(m -> QueueApi.awaitStatus(m.getId(), MailStatus.SENT, Duration.ofSeconds(30)));
        List<Long> ids = mails.stream().map(EnqueueReceipt::getId).toList();
        List<Long> old = ids.subList(0, 5);
        List<Long> kept = ids.subList(5, 9);
        String executionsBefore = executions();

        try {
            age(ids.get(0) + ":SENT:16," + ids.get(1) + ":SENT:30," + ids.get(2) + ":FAILED:16,"
                    + ids.get(3) + ":CANCELLED:400," + ids.get(4) + ":EXPIRED:16,"
                    + ids.get(5) + ":SENT:14," // final, but newer than 15 days
                    + ids.get(6) + ":QUEUED:100," + ids.get(7) + ":SENDING:100," + ids.get(8) + ":HELD:100"); // live, held

            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500))
                    .until(() -> old.stream().allMatch(id -> QueueApi.storedRows("MAIL_MESSAGE", id) == 0));
            for (long id : old) {
                for (String table : List.of("MAIL_ATTEMPT", "MAIL_ATTACHMENT", "MAIL_HEADER")) {
                    assertThat(QueueApi.storedRows(table, id)).as("%s of deleted mail %s", table, id).isZero();
                }
                assertThat(QueueApi.get("/api/mails/" + id).statusCode()).isEqualTo(404);
            }
            // Normally one execution deletes all 5 in two chunks (3 a transaction here); one that ran while
            // the rows were being aged may have seen only some of them, and the next the rest.
            // (The last may still be closing when the rows are gone, hence the wait.)
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                List<String> executions = newExecutions(executionsBefore);
                assertThat(executions).as("retention executions since the rows were aged")
                        .noneMatch(line -> line.contains("FAILED"));
                List<String> completed = executions.stream()
                        .filter(line -> line.matches("\\d+ COMPLETED DELETED=\\d+(,CONTENT_REMOVED=\\d+)?")).toList();
                assertThat(completed.stream().mapToInt(line -> count(line, "DELETED")).sum())
                        .as("mails deleted, from the exit status of %s (of all: %s)", completed, executions).isEqualTo(5);
                assertThat(completed.stream().mapToInt(line -> count(line, "CONTENT_REMOVED")).sum())
                        .as("mails whose content went, from the exit status of %s (of all: %s)", completed, executions).isEqualTo(1);
            });

            long emptied = ids.get(5); // final, 14 days: older than the 13 days content is kept
            MailView view = QueueApi.find(emptied);
            assertThat(view.getContentRemovedAt()).as("the view says when its content went").isNotNull();
            assertThat(view.getAttachments()).isEmpty();
            assertThat(view.getHeaders()).containsEntry("X-Retention", "5");
            assertThat(QueueApi.storedRows("MAIL_ATTACHMENT", emptied)).isZero();
            HttpResponse<String> detail = QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE, "/api/admin/mails/" + emptied);
            assertThat(QueueApi.jsonObject(detail.body())).as(detail.body()).doesNotContainKeys("text", "html")
                    .containsEntry("subject", "retention 5");
            HttpResponse<String> requeue = QueueApi.postAs(TestUser.ADMIN, QueueApi.BASE,
                    "/api/admin/mails/" + emptied + "/requeue", "");
            assertThat(requeue.statusCode()).as(requeue.body()).isEqualTo(409);
            assertThat(requeue.body()).contains("removed its content");
            assertThat(QueueApi.find(emptied).getStatus()).isEqualTo(MailStatus.SENT);

            List<MailStatus> keptStates = kept.stream().map(id -> QueueApi.find(id).getStatus()).toList();
            assertThat(keptStates).containsExactly(MailStatus.SENT, MailStatus.QUEUED, MailStatus.SENDING, MailStatus.HELD);
            for (long id : kept) {
                // the log holds more than attempts (the probe recorded HELD in it): count the attempt log
                assertThat(QueueApi.find(id).getAttempts()).as("attempts of kept mail %s", id).hasSize(1);
                assertThat(QueueApi.storedRows("MAIL_ATTACHMENT", id)).as("attachment of kept mail %s", id)
                        .isEqualTo(id == emptied ? 0 : 1);
                assertThat(QueueApi.storedRows("MAIL_HEADER", id)).as("header of kept mail %s", id).isEqualTo(1);
            }
        } finally {
            // Leave nothing live behind for later tests or runs: finished and old, the job takes them.
            age(kept.stream().map(id -> id + ":CANCELLED:100").collect(Collectors.joining(",")));
        }
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500))
                .until(() -> kept.stream().allMatch(id -> QueueApi.storedRows("MAIL_MESSAGE", id) == 0));
    }

    /** @return the number after {@code name=} in an execution's line, 0 when it has none */
    private static int count(String line, String name) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("[ ,]" + name + "=(\\d+)").matcher(line);
        return m.find() ? Integer.parseInt(m.group(1)) : 0;
    }

    private static void age(String rows) {
        HttpResponse<String> response = QueueApi.postForm("/probe/db?op=age&rows=" + rows);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        assertThat(Integer.parseInt(response.body().strip())).isEqualTo(rows.split(",").length);
    }

    private static String executions() {
        // As the administrator: with batch security on, only a batch role may read job executions.
        HttpResponse<String> response = QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE,
                "/probe/db?op=executions&job=mail-retention");
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return response.body();
    }

    /** @return lines "id status exitStatus" of retention executions not listed in {@code before} */
    private static List<String> newExecutions(String before) {
        List<String> earlier = before.lines().toList();
        return executions().lines().filter(line -> !earlier.contains(line)).toList();
    }
}
