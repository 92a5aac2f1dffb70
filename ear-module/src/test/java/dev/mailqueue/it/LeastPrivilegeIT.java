package dev.mailqueue.it;

import dev.mailqueue.api.EnqueueReceipt;
import dev.mailqueue.api.MailRequest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.net.CookieManager;
import java.net.HttpCookie;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each role gets what it needs and no more. Queue operators ({@code mail-admin}, group mail-admins) get
 * Liberty's reader role and the batch role batchAdmin: the batch REST API, /metrics and the Admin Center
 * with its Java Batch tool, but no server administration (no MBean operation, no file written through
 * the file transfer service); 61ec004 gave them Liberty's administrator role, i.e. code on the server.
 * A sender may name only the SMTP accounts of its allow-list ({@code mailqueue.security.allowed-accounts.<user>}),
 * and a refusal lists no other account.
 */
@Tag(QueueServerIT.DATABASE_NEUTRAL)
class LeastPrivilegeIT extends QueueServerIT {

    private static final HttpClient HTTPS = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .sslContext(TrustingTls.context()).connectTimeout(Duration.ofSeconds(10)).build();

    @Test
    void operatorsMayReadAndManageBatchJobsButNotAdministerTheServer() throws Exception {
        assertThat(https("GET", "/ibm/api/batch/jobinstances", TestUser.ADMIN, null).statusCode()).isEqualTo(200);
        assertThat(https("GET", "/metrics?scope=application", TestUser.ADMIN, null).statusCode()).isEqualTo(200);
        assertThat(https("GET", "/IBMJMXConnectorREST/mbeans", TestUser.ADMIN, null).statusCode())
                .as("reading MBeans is monitoring").isEqualTo(200);

        HttpResponse<String> invoke = https("POST", "/IBMJMXConnectorREST/mbeans/"
                + "WebSphere%3Aname%3Dcom.ibm.websphere.config.mbeans.ServerXMLConfigurationMBean/operations/"
                + "fetchConfigurationFilePaths", TestUser.ADMIN, "{\"params\":[],\"signature\":[]}");
        assertThat(invoke.statusCode()).as("invoking an MBean operation: %s", invoke.body()).isEqualTo(403);
        HttpResponse<String> upload = https("POST", "/IBMJMXConnectorREST/file/"
                + URLEncoder.encode("${server.config.dir}/configDropins/overrides/evil.xml", StandardCharsets.UTF_8),
                TestUser.ADMIN, "<server/>");
        assertThat(upload.statusCode()).as("writing a configuration file: %s", upload.body()).isIn(401, 403);

        assertThat(https("GET", "/ibm/api/batch/jobinstances", TestUser.SENDER, null).statusCode()).isIn(401, 403);
    }

    @Test
    void operatorsReachTheAdminCentersJavaBatchTool() throws Exception {
        CookieManager cookies = new CookieManager();
        HttpClient browser = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).sslContext(TrustingTls.context())
                .cookieHandler(cookies).followRedirects(HttpClient.Redirect.NORMAL).build();
        HttpResponse<String> login = browser.send(HttpRequest.newBuilder(URI.create(QueueApi.HTTPS_BASE + "/adminCenter/"))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(login.body()).contains("j_security_check");
        String token = cookies.getCookieStore().getCookies().stream().filter(c -> c.getName().equals("csrfToken"))
                .map(HttpCookie::getValue).findFirst().orElse("");

        HttpResponse<String> loggedIn = browser.send(HttpRequest.newBuilder(
                        URI.create(QueueApi.HTTPS_BASE + "/adminCenter/j_security_check"))
                .header("Content-Type", "application/x-www-form-urlencoded").header("X-CSRF-Token", token)
                .POST(HttpRequest.BodyPublishers.ofString("j_username=" + TestUser.ADMIN.name() + "&j_password="
                        + TestUser.ADMIN.password() + "&csrfToken=" + token)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(loggedIn.statusCode()).as("after login").isEqualTo(200);

        HttpResponse<String> toolbox = browser.send(HttpRequest.newBuilder(
                URI.create(QueueApi.HTTPS_BASE + "/ibm/api/adminCenter/v1/toolbox")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(toolbox.statusCode()).isEqualTo(200);
        assertThat(toolbox.body()).contains("javaBatch");
        HttpResponse<String> tool = browser.send(HttpRequest.newBuilder(
                URI.create(QueueApi.HTTPS_BASE + "/ibm/adminCenter/javaBatch-1.0/")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(tool.statusCode()).as("the Java Batch tool").isEqualTo(200);
        HttpResponse<String> jobs = browser.send(HttpRequest.newBuilder(
                URI.create(QueueApi.HTTPS_BASE + "/ibm/api/batch/jobinstances")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(jobs.statusCode()).as("the batch API, as the tool calls it").isEqualTo(200);
    }

    @Test
    void aSenderMayNameOnlyTheAccountsOfItsAllowListAndIsToldNoOtherAccount() {
        long stored = QueueApi.storedMails();

        HttpResponse<String> other = QueueApi.postAs(TestUser.OTHER_SENDER, QueueApi.BASE, "/api/mails",
                QueueApi.toJson(mail("only@other.example").account("backup")));
        Problems.assertProblem(other, 403, "account");
        HttpResponse<String> unknown = QueueApi.post(QueueApi.toJson(mail("alice@sender.example").account("marketing")));
        Problems.assertProblem(unknown, 400, "account");
        for (HttpResponse<String> refusal : List.of(other, unknown)) {
            assertThat(refusal.body()).doesNotContain("backup", "primary", "throttled", "slow", "mailqueue,");
        }
        HttpResponse<String> batch = QueueApi.postAs(TestUser.OTHER_SENDER, QueueApi.BASE, "/api/mails/batch",
                "[" + QueueApi.toJson(mail("only@other.example")) + "," + QueueApi.toJson(mail("only@other.example")
                        .account("mailqueue")) + "]");
        Problems.assertProblem(batch, 403, "[1].account");
        assertThat(QueueApi.storedMails()).as("nothing stored").isEqualTo(stored);

        EnqueueReceipt allowed = QueueApi.enqueue(mail("alice@sender.example").account("backup"));
        assertThat(QueueApi.find(allowed.getId()).getAccount()).isEqualTo("backup");
        HttpResponse<String> routed = QueueApi.postAs(TestUser.OTHER_SENDER, QueueApi.BASE, "/api/mails",
                QueueApi.toJson(mail("only@other.example")));
        assertThat(routed.statusCode()).as("naming no account is always allowed: %s", routed.body()).isEqualTo(202);
    }

    private static MailRequest mail(String from) {
        return new MailRequest().from(from).to("accounts@to.example").subject("s").text("x")
                .notBefore(Instant.now().plus(Duration.ofHours(2)));
    }

    private static HttpResponse<String> https(String method, String path, TestUser user, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(QueueApi.HTTPS_BASE + path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .header("Authorization", user.basic());
        if (body != null) {
            request.header("Content-Type", body.startsWith("{") ? "application/json" : "application/octet-stream");
        }
        return HTTPS.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}
