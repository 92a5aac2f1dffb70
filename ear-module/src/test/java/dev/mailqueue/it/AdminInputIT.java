package dev.mailqueue.it;

import dev.mailqueue.api.EnqueueReceipt;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.api.MailStatus;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The operator's API refuses what it cannot use, naming it, instead of guessing: paging parameters that
 * are not whole numbers or would overflow the offset (61ec004: 500, or 404 for {@code size=abc}), search
 * criteria the database cannot take (61ec004: 500 after ten seconds of retries), and bulk filters whose
 * criteria do not parse or are blank (61ec004: {@code {"bounced":"maybe"}} cancelled every queued mail).
 */
@Tag(QueueServerIT.DATABASE_NEUTRAL)
class AdminInputIT extends QueueServerIT {

    @Test
    void pagingParametersAreWholeNumbersInRange() {
        for (String query : List.of("page=99999999", "page=2147483647", "page=-1", "page=abc", "size=abc", "size=0",
                "size=501", "size=1e3")) {
            String parameter = query.substring(0, query.indexOf('='));
            Problems.assertProblem(search(query), 400, parameter);
        }
        assertThat(search("page=0&size=500").statusCode()).isEqualTo(200);
        assertThat(search("page=4294967&size=500").statusCode()).as("the largest page of 500").isEqualTo(200);
    }

    @Test
    void searchCriteriaTheDatabaseCannotTakeAreRefusedAtOnce() {
        assertThat(search("recipient=warm-up").statusCode()).isEqualTo(200);
        for (String query : List.of("recipient=a%00b", "sender=%01", "createdFrom=%2B999999999-12-31T23:59:59Z",
                "createdTo=-999999999-01-01T00:00:00Z")) {
            long started = System.nanoTime();
            Problems.assertProblem(search(query), 400, query.substring(0, query.indexOf('=')));
            assertThat(Duration.ofNanos(System.nanoTime() - started)).as("no database retries for %s", query)
                    .isLessThan(Duration.ofSeconds(8)); // 61ec004: 10 s of EclipseLink retries, then 500
        }
    }

    @Test
    void aBulkFilterThatDoesNotParseOrIsBlankChangesNothing() {
        EnqueueReceipt queued = QueueApi.enqueue(new MailRequest().from("alice@sender.example").to("bulk-guard@to.example")
                .subject("must stay queued").text("x").notBefore(Instant.now().plus(Duration.ofHours(2))));

        for (String action : List.of("cancel", "delete", "requeue")) {
            Problems.assertProblem(bulk(action, "{\"bounced\":\"maybe\"}"), 400, "bounced");
            Problems.assertProblem(bulk(action, "{\"sender\":\"\"}"), 400, "sender");
            Problems.assertProblem(bulk(action, "{}"), 400, "filter");
            Problems.assertProblem(bulk(action, "{\"ids\":[null]}"), 400, "ids[0]");
            Problems.assertProblem(bulk(action, "{\"recipient\":\"a\\u0000b\"}"), 400, "recipient");
        }

        assertThat(QueueApi.find(queued.getId()).getStatus()).as("untouched").isEqualTo(MailStatus.QUEUED);
        HttpResponse<String> meant = bulk("cancel", "{\"ids\":[" + queued.getId() + "],\"bounced\":false}");
        assertThat(meant.body()).isEqualTo("{\"changed\":1}");
    }

    private static HttpResponse<String> search(String query) {
        return QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE, "/api/admin/mails?" + query);
    }

    private static HttpResponse<String> bulk(String action, String filter) {
        return QueueApi.postAs(TestUser.ADMIN, QueueApi.BASE, "/api/admin/mails/" + action, filter);
    }
}
