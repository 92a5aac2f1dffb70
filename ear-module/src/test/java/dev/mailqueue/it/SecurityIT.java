package dev.mailqueue.it;

import dev.mailqueue.api.EnqueueReceipt;
import dev.mailqueue.api.MailRequest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Nobody else can use the queue: every endpoint needs a user (401 without), the operator's API needs
 * role mail-admin (403 for a sender), a sender may only send as the From addresses of its allow-list
 * (403 problem details, nothing stored) and sees only its own mails; the remote EJBs check the same
 * (EJBAccessException, SenderNotAllowedException). The users are those of TestUser.
 */
@Tag(QueueServerIT.DATABASE_NEUTRAL)
class SecurityIT extends QueueServerIT {

    private static final String MAIL = QueueApi.toJson(new MailRequest().from("alice@sender.example")
            .to("guarded@to.example").subject("guarded").text("x").notBefore(Instant.now().plusSeconds(3600)));

    @Test
    void withoutCredentialsEveryEndpointAnswers401AndNothingIsStored() {
        long stored = QueueApi.storedMails();
        for (HttpResponse<String> response : List.of(
                QueueApi.postAs(null, QueueApi.BASE, "/api/mails", MAIL),
                QueueApi.postAs(null, QueueApi.BASE, "/api/mails/batch", "[" + MAIL + "]"),
                QueueApi.getAs(null, QueueApi.BASE, "/api/mails/1"),
                QueueApi.getAs(null, QueueApi.BASE, "/api/admin/statistics"),
                QueueApi.getAs(null, QueueApi.BASE, "/api/admin/mails"),
                QueueApi.getAs(null, QueueApi.BASE, "/admin/"),
                QueueApi.getAs(null, QueueApi.HTTPS_BASE, "/metrics"),
                QueueApi.getAs(null, QueueApi.HTTPS_BASE, "/ibm/api/batch/jobinstances"))) {
            assertThat(response.statusCode()).as("%s", response.uri()).isEqualTo(401);
        }
        assertThat(QueueApi.postAs(null, QueueApi.BASE, "/api/mails", MAIL).headers()
                .firstValue("WWW-Authenticate")).hasValueSatisfying(v -> assertThat(v).startsWith("Basic"));
        assertThat(QueueApi.postAs(TestUser.SENDER.withPassword("wrong"), QueueApi.BASE, "/api/mails", MAIL)
                .statusCode()).as("wrong password").isEqualTo(401);
        assertThat(QueueApi.storedMails()).isEqualTo(stored);
    }

    @Test
    void aUserWithoutARoleAndASenderOnTheOperatorsApiGet403() {
        long stored = QueueApi.storedMails();
        assertThat(QueueApi.postAs(TestUser.NOBODY, QueueApi.BASE, "/api/mails", MAIL).statusCode()).isEqualTo(403);
        for (String path : List.of("/api/admin/statistics", "/api/admin/mails?status=FAILED", "/admin/")) {
            assertThat(QueueApi.getAs(TestUser.SENDER, QueueApi.BASE, path).statusCode()).as(path).isEqualTo(403);
        }
        assertThat(QueueApi.postAs(TestUser.SENDER, QueueApi.BASE, "/api/admin/mails/requeue",
                "{\"statuses\":[\"FAILED\"]}").statusCode()).isEqualTo(403);
        assertThat(QueueApi.getAs(TestUser.SENDER, QueueApi.HTTPS_BASE, "/metrics").statusCode()).isEqualTo(403);
        // Liberty's /ibm/api answers a user outside the administrator role 401 (log in as someone else).
        assertThat(QueueApi.getAs(TestUser.SENDER, QueueApi.HTTPS_BASE, "/ibm/api/batch/jobinstances")
                .statusCode()).isIn(401, 403);
        assertThat(QueueApi.storedMails()).isEqualTo(stored);
    }

    @Test
    void aSenderMayNotSendAsAnAddressOutsideItsAllowList() {
        long stored = QueueApi.storedMails();
        HttpResponse<String> refused = QueueApi.post(QueueApi.toJson(new MailRequest().from("ceo@bank.example")
                .to("victim@to.example").subject("wire money").text("x")));
        assertForbiddenFrom(refused, "from");

        String batch = "[" + MAIL + "," + QueueApi.toJson(new MailRequest().from("ceo@bank.example")
                .to("victim@to.example").text("x")) + "]";
        assertForbiddenFrom(QueueApi.postTo("/api/mails/batch", batch), "[1].from");

        // Another sender's list: only only@other.example, so not @sender.example.
        assertForbiddenFrom(QueueApi.postAs(TestUser.OTHER_SENDER, QueueApi.BASE, "/api/mails", MAIL), "from");
        assertThat(QueueApi.storedMails()).as("nothing stored").isEqualTo(stored);

        // The administrator may send as anyone.
        HttpResponse<String> admin = QueueApi.postAs(TestUser.ADMIN, QueueApi.BASE, "/api/mails",
                QueueApi.toJson(new MailRequest().from("ops@anywhere.example").to("x@to.example").text("x")
                        .notBefore(Instant.now().plusSeconds(3600))));
        assertThat(admin.statusCode()).as(admin.body()).isEqualTo(202);
    }

    @Test
    void aSenderSeesAndCancelsOnlyItsOwnMailsAndTheMailRecordsWhoEnqueuedIt() {
        EnqueueReceipt mine = QueueApi.enqueue(new MailRequest().from("alice@sender.example")
                .to("private@to.example").subject("mine").text("x").notBefore(Instant.now().plusSeconds(3600)));
        String path = "/api/mails/" + mine.getId();

        assertThat(QueueApi.find(mine.getId()).getEnqueuedBy()).isEqualTo(TestUser.SENDER.name());
        assertThat(QueueApi.getAs(TestUser.OTHER_SENDER, QueueApi.BASE, path).statusCode()).isEqualTo(404);
        assertThat(QueueApi.sendAs(TestUser.OTHER_SENDER, "DELETE", path).statusCode()).isEqualTo(404);
        HttpResponse<String> byAdmin = QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE, path);
        assertThat(byAdmin.statusCode()).isEqualTo(200);
        assertThat(QueueApi.find(mine.getId()).getStatus()).hasToString("QUEUED");
    }

    @Test
    void theRemoteEjbsCheckTheSameRolesAndAllowList() {
        // caller.war calls the remote views as the user its request authenticated as.
        assertThat(caller(null, "outcome=commit&to=a@to.example&subject=s"))
                .isEqualTo("jakarta.ejb.EJBAccessException");
        assertThat(caller(TestUser.NOBODY, "outcome=commit&to=a@to.example&subject=s"))
                .isEqualTo("jakarta.ejb.EJBAccessException");
        assertThat(caller(TestUser.SENDER, "outcome=statistics")).isEqualTo("jakarta.ejb.EJBAccessException");
        assertThat(caller(TestUser.ADMIN, "outcome=statistics")).matches("[0-9]+");
        assertThat(caller(TestUser.SENDER, "outcome=commit&to=a@to.example&subject=s&from=ceo@bank.example"))
                .startsWith("dev.mailqueue.api.SenderNotAllowedException").contains("from");
    }

    private static String caller(TestUser user, String query) {
        HttpResponse<String> response = QueueApi.sendAs(user, "POST", "/caller/enqueue?" + query);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return response.body().strip();
    }

    private static void assertForbiddenFrom(HttpResponse<String> response, String field) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(403);
        assertThat(response.headers().firstValue("Content-Type"))
                .hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> errors = (List<Map<String, Object>>) QueueApi.jsonObject(response.body()).get("errors");
        assertThat(errors).extracting(e -> e.get("field")).containsExactly(field);
    }

}
