package dev.mailqueue.it;

import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * Every server renders what the database holds now (issue 47, point 6): a template stored, rendered on a second
 * server (which keeps its compilation), deleted and stored again through the first server, is rendered on the
 * second from its new content and version, never from the deleted one it compiled. Needs a database both servers
 * share, and runs in the PostgreSQL build only: what it adds to {@code TemplateRenderingTest} (the same sequence
 * with two engines on one store, on every database) is the second Liberty, which does not depend on the database,
 * and a second server's start is most of its 20 s. {@link TemplatesIT} shows the same on one server.
 */
class TemplatesAcrossServersIT extends QueueServerIT {

    @Test
    void aTemplateDeletedAndStoredAgainIsRenderedFromItsNewContentOnAnotherServer() throws Exception {
        assumeThat(System.getProperty("it.db", "derby")).as("two servers on PostgreSQL (see the class comment)")
                .isEqualTo("postgresql");
        String name = "shared-" + Long.toString(System.nanoTime(), 36);
        try (SecondServer second = SecondServer.start()) {
            assertThat(store(name, "Old ${n}").statusCode()).isEqualTo(201);
            assertThat(preview(SecondServer.BASE, name)).containsEntry("subject", "Old 1");

            assertThat(QueueApi.sendAs(TestUser.ADMIN, "DELETE", "/api/admin/templates/" + name).statusCode()).isEqualTo(204);
            HttpResponse<String> again = store(name, "New ${n}");
            assertThat(again.statusCode()).as(again.body()).isEqualTo(201);
            assertThat(((Number) QueueApi.jsonObject(again.body()).get("version")).intValue()).isEqualTo(2);

            assertThat(preview(SecondServer.BASE, name)).as("the second server, which compiled version 1")
                    .containsEntry("subject", "New 1");
            HttpResponse<String> mail = QueueApi.postTo(SecondServer.BASE, "/api/mails", "{\"from\":\"alice@sender.example\","
                    + "\"to\":[\"" + name + "@to.example\"],\"notBefore\":\"" + java.time.Instant.now().plus(java.time.Duration.ofHours(1))
                    + "\",\"template\":{\"name\":\""
                    + name + "\",\"variables\":{\"n\":2}}}");
            assertThat(mail.statusCode()).as(mail.body()).isEqualTo(202);
            long id = QueueApi.receipt(mail.body()).getId();
            assertThat(QueueApi.jsonObject(QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE, "/api/admin/mails/" + id).body()))
                    .containsEntry("subject", "New 2");
            assertThat(QueueApi.send("DELETE", "/api/mails/" + id).statusCode()).isEqualTo(200);
        }
    }

    private static HttpResponse<String> store(String name, String subject) {
        return QueueApi.sendAs(TestUser.ADMIN, "PUT", "/api/admin/templates/" + name, "{\"defaultLocale\":\"en\","
                + "\"locales\":{\"en\":{\"subject\":\"" + subject + "\",\"text\":\"t\"}}}");
    }

    private static Map<String, Object> preview(String base, String name) {
        HttpResponse<String> answer = QueueApi.postAs(TestUser.ADMIN, base, "/api/admin/templates/" + name + "/preview",
                "{\"variables\":{\"n\":1}}");
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        return QueueApi.jsonObject(answer.body());
    }
}
