package dev.mailqueue.it;

import dev.mailqueue.api.EnqueueReceipt;
import jakarta.mail.Message;
import jakarta.mail.Multipart;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Templates against the real server and SMTP server (issue 31, part 1): stored through the admin API, rendered at
 * enqueue over REST (one mail and a 10,000-recipient mail merge in one batch request), with locale fallback, HTML
 * escaping and a derived text part; every kind of template error refused with nothing queued, a template past a
 * render limit too (issue 47, point 6: a 400, never a 500); a replaced template leaves mail already queued as it
 * was, and one deleted and stored again continues its versions and is what is sent; a sender may not use a
 * template its allow-list leaves out. Database-neutral: Derby and the WildFly run ({@link TemplatesAcrossServersIT}
 * renders on a second server).
 */
@Tag(QueueServerIT.DATABASE_NEUTRAL)
class TemplatesIT extends QueueServerIT {

    /**
     * Recipients of the mail merge: 10,000 (the batch endpoint's limit) on Liberty; on WildFly, whose run proves the
     * same EAR on another server, 1,000, since the rendering and the batch path are the same code and the 10,000
     * mails cost CI a minute.
     */
    private static final int MERGE = Observability.WILDFLY ? 1_000 : 10_000;

    private final String run = Long.toString(System.nanoTime(), 36);

    private static HttpResponse<String> put(String name, String json) {
        return QueueApi.sendAs(TestUser.ADMIN, "PUT", "/api/admin/templates/" + name, json);
    }

    private static int version(HttpResponse<String> stored) {
        return ((Number) QueueApi.jsonObject(stored.body()).get("version")).intValue();
    }

    private static MimeMessage arrived(String recipient) {
        await().atMost(Duration.ofSeconds(30)).until(() -> !SMTP.inbox(recipient).isEmpty());
        return SMTP.inbox(recipient).get(0);
    }

    /** @return the message's parts by content type (text/plain, text/html), or its one body */
    private static Map<String, String> parts(MimeMessage message) throws Exception {
        Map<String, String> parts = new HashMap<>();
        if (message.getContent() instanceof Multipart multipart) {
            for (int i = 0; i < multipart.getCount(); i++) {
                var part = multipart.getBodyPart(i);
                parts.put(part.getContentType().replaceAll(";.*", "").strip().toLowerCase(), (String) part.getContent());
            }
        } else {
            parts.put("text/plain", (String) message.getContent());
        }
        return parts;
    }

    @Test
    void aTemplateInTwoLocalesIsRenderedAtEnqueueWithFallbackAndEscaping() throws Exception {
        String name = "welcome-" + run;
        HttpResponse<String> stored = put(name, "{\"defaultLocale\":\"en\",\"locales\":{"
                + "\"en\":{\"subject\":\"Welcome, ${name}\",\"html\":\"<p>Hello <b>${name}</b>!</p>\"},"
                + "\"de\":{\"subject\":\"Willkommen, ${name}\",\"html\":\"<p>Hallo <b>${name}</b>!</p>"
                + "<p><a href=\\\"https://shop.example/start\\\">Los</a></p>\"}}}");
        assertThat(stored.statusCode()).as(stored.body()).isEqualTo(201);
        assertThat(version(stored)).isEqualTo(1);
        assertThat(QueueApi.jsonObject(stored.body())).containsEntry("defaultLocale", "en");
        HttpResponse<String> seen = QueueApi.getAs(TestUser.VIEWER, QueueApi.BASE, "/api/admin/templates/" + name);
        assertThat(seen.statusCode()).as("a viewer reads templates").isEqualTo(200);

        String swiss = "swiss." + run + "@to.example";
        String french = "french." + run + "@to.example";
        for (String[] mail : new String[][]{{swiss, "de-CH"}, {french, "fr"}}) {
            HttpResponse<String> answer = QueueApi.post("{\"from\":\"alice@sender.example\",\"to\":[\"" + mail[0] + "\"],"
                    + "\"template\":{\"name\":\"" + name + "\",\"locale\":\"" + mail[1] + "\","
                    + "\"variables\":{\"name\":\"<script>alert(1)</script> & Co\"}}}");
            assertThat(answer.statusCode()).as(answer.body()).isEqualTo(202);
        }

        MimeMessage german = arrived(swiss);
        assertThat(german.getSubject()).isEqualTo("Willkommen, <script>alert(1)</script> & Co");
        Map<String, String> parts = parts(german);
        assertThat(parts.get("text/html")).contains("<b>&lt;script&gt;alert(1)&lt;/script&gt; &amp; Co</b>")
                .doesNotContain("<script>");
        assertThat(parts.get("text/plain")).as("the text part derived from the HTML")
                .isEqualToIgnoringNewLines("Hallo <script>alert(1)</script> & Co!Los <https://shop.example/start>");
        assertThat(arrived(french).getSubject()).as("no French: the default locale")
                .isEqualTo("Welcome, <script>alert(1)</script> & Co");

        HttpResponse<String> preview = QueueApi.postAs(TestUser.ADMIN, QueueApi.BASE, "/api/admin/templates/" + name
                + "/preview", "{\"locale\":\"de-AT\",\"variables\":{\"name\":\"Jo\"}}");
        assertThat(preview.statusCode()).as(preview.body()).isEqualTo(200);
        assertThat(QueueApi.jsonObject(preview.body())).containsEntry("locale", "de")
                .containsEntry("subject", "Willkommen, Jo");
    }

    @Test
    void everyKindOfTemplateErrorIsRefusedNamingItWithNothingQueued() {
        String name = "order-" + run;
        assertThat(put(name, "{\"defaultLocale\":\"en\",\"locales\":{\"en\":{\"subject\":\"Order ${order.number}\","
                + "\"text\":\"<#list order.items as item>${item.title}\\n</#list>\"}}}").statusCode()).isEqualTo(201);
        HttpResponse<String> broken = put(name, "{\"defaultLocale\":\"en\",\"locales\":{\"en\":{\"text\":\"${oops\"}}}");
        Problems.assertProblem(broken, 400, "locales.en.text");
        long stored = QueueApi.storedMails();

        Map<String, String> cases = Map.of(
                "\"name\":\"missing-" + run + "\",\"variables\":{}", "template.name",
                "\"name\":\"" + name + "\",\"variables\":{\"order\":{\"items\":[]}}", "template.variables.order.number",
                "\"name\":\"" + name + "\",\"variables\":{\"order\":{\"number\":7,\"items\":\"one\"}}",
                "template.variables.order.items",
                "\"name\":\"" + name + "\",\"locale\":\"en_GB\",\"variables\":{}", "template.locale");
        cases.forEach((template, field) -> {
            HttpResponse<String> answer = QueueApi.post("{\"from\":\"alice@sender.example\",\"to\":[\"err." + run
                    + "@to.example\"],\"template\":{" + template + "}}");
            Problems.assertProblem(answer, 400, field);
            if (!field.equals("template.name") && !field.equals("template.locale")) {
                assertThat(answer.body()).as("names the template and its locale").contains(name).contains("locale en");
            }
        });
        String batch = "[{\"from\":\"alice@sender.example\",\"to\":[\"ok." + run + "@to.example\"],\"template\":{\"name\":\""
                + name + "\",\"variables\":{\"order\":{\"number\":1,\"items\":[]}}}},{\"from\":\"alice@sender.example\","
                + "\"to\":[\"bad." + run + "@to.example\"],\"template\":{\"name\":\"" + name + "\",\"variables\":{}}}]";
        Problems.assertProblem(QueueApi.postTo("/api/mails/batch", batch), 400, "[1].template.variables.order");


        // Render limits (issue 47, point 6): past them a 400 naming the template, never a server error. Gated by a
        // variable, so the trial render at storing (no variables) passes them.
        String limits = "limits-" + run;
        assertThat(put(limits, "{\"defaultLocale\":\"en\",\"locales\":{\"en\":{\"subject\":\"Limits\",\"text\":\""
                + "<#macro m n><@m n + 1/></#macro><#if deep><@m 0/></#if>"
                + "<#if big><#assign s = 'x'><#list 1..26 as i><#assign s = s + s></#list>${s?length}</#if>ok\"}}}")
                .statusCode()).isEqualTo(201);
        Map<String, String> overLimits = Map.of("{\"deep\":true,\"big\":false}", "nests macro or function calls too deeply",
                "{\"deep\":false,\"big\":true}", "bytes of memory to render (mailqueue.templates.max-render-bytes)");
        overLimits.forEach((variables, message) -> {
            HttpResponse<String> answer = QueueApi.post("{\"from\":\"alice@sender.example\",\"to\":[\"limit." + run
                    + "@to.example\"],\"template\":{\"name\":\"" + limits + "\",\"variables\":" + variables + "}}");
            Problems.assertProblem(answer, 400, "template");
            assertThat(answer.body()).contains("invalid-mail").contains(message).contains(limits);
        });
        HttpResponse<String> within = QueueApi.postAs(TestUser.ADMIN, QueueApi.BASE, "/api/admin/templates/" + limits
                + "/preview", "{\"variables\":{\"deep\":false,\"big\":false}}");
        assertThat(within.statusCode()).as("negative control: the same template within its limits").isEqualTo(200);
        HttpResponse<String> endless = put("endless-" + run, "{\"defaultLocale\":\"en\",\"locales\":{\"en\":{"
                + "\"subject\":\"s\",\"html\":\"<#macro m><@m/></#macro><p><@m/></p>\"}}}");
        Problems.assertProblem(endless, 400, "locales.en.html");
        assertThat(endless.body()).as("refused at its trial render").contains("invalid-template").contains("too deeply");

        assertThat(QueueApi.storedMails()).as("nothing queued").isEqualTo(stored);
    }

    @Test
    void aSenderMayUseOnlyTheTemplatesItsAllowListNames() {
        String name = "team-" + run;
        assertThat(put(name, "{\"defaultLocale\":\"en\",\"locales\":{\"en\":{\"subject\":\"Payroll\","
                + "\"text\":\"Salary ${amount}\"}}}").statusCode()).isEqualTo(201);
        long stored = QueueApi.storedMails();

        String mail = "{\"from\":\"only@other.example\",\"to\":[\"own." + run + "@to.example\"],\"template\":{\"name\":\""
                + name + "\",\"variables\":{\"amount\":1}}}";
        HttpResponse<String> refused = QueueApi.postAs(TestUser.OTHER_SENDER, QueueApi.BASE, "/api/mails", mail);
        Problems.assertProblem(refused, 403, "template.name");
        assertThat(refused.body()).contains("mailqueue.security.allowed-templates.other-sender").doesNotContain("Salary");
        HttpResponse<String> missing = QueueApi.postAs(TestUser.OTHER_SENDER, QueueApi.BASE, "/api/mails",
                mail.replace(name, "nothing-" + run));
        Problems.assertProblem(missing, 403, "template.name"); // not a 400 "no stored template": nothing learnt
        Problems.assertProblem(QueueApi.postAs(TestUser.OTHER_SENDER, QueueApi.BASE, "/api/mails/batch", "[" + mail + "]"),
                403, "[0].template.name");
        assertThat(QueueApi.storedMails()).as("nothing queued").isEqualTo(stored);

        HttpResponse<String> sender = QueueApi.post(mail.replace("only@other.example", "alice@sender.example"));
        assertThat(sender.statusCode()).as("negative control: a sender without the property may use it: " + sender.body())
                .isEqualTo(202);
    }

    @Test
    void aReplacedTemplateLeavesMailAlreadyQueuedAsItWasRendered() throws Exception {
        String name = "notice-" + run;
        assertThat(put(name, "{\"defaultLocale\":\"en\",\"locales\":{\"en\":{\"subject\":\"Version one\","
                + "\"text\":\"First ${n}\"}}}").statusCode()).isEqualTo(201);
        String later = Instant.now().plus(Duration.ofHours(1)).toString();
        EnqueueReceipt queued = QueueApi.receipt(QueueApi.post("{\"from\":\"alice@sender.example\",\"to\":[\"later." + run
                + "@to.example\"],\"notBefore\":\"" + later + "\",\"template\":{\"name\":\"" + name
                + "\",\"variables\":{\"n\":1}}}").body());

        HttpResponse<String> replaced = put(name, "{\"defaultLocale\":\"en\",\"locales\":{\"en\":{\"subject\":\"Version two\","
                + "\"text\":\"Second ${n}\"}}}");
        assertThat(replaced.statusCode()).as(replaced.body()).isEqualTo(200);
        assertThat(version(replaced)).isEqualTo(2);
        String now = "now." + run + "@to.example";
        assertThat(QueueApi.post("{\"from\":\"alice@sender.example\",\"to\":[\"" + now + "\"],\"template\":{\"name\":\""
                + name + "\",\"variables\":{\"n\":2}}}").statusCode()).isEqualTo(202);

        Map<String, Object> detail = QueueApi.jsonObject(QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE,
                "/api/admin/mails/" + queued.getId()).body());
        assertThat(detail).containsEntry("subject", "Version one").containsEntry("text", "First 1");
        assertThat(arrived(now).getSubject()).isEqualTo("Version two");
        assertThat(QueueApi.send("DELETE", "/api/mails/" + queued.getId()).statusCode()).isEqualTo(200);
        assertThat(QueueApi.sendAs(TestUser.ADMIN, "DELETE", "/api/admin/templates/" + name).statusCode()).isEqualTo(204);
        assertThat(QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE, "/api/admin/templates/" + name).statusCode()).isEqualTo(404);

        // Stored again after the deletion: the next version number, and what is sent is the new content, although
        // this server rendered version 2 a moment ago (issue 47, point 6).
        HttpResponse<String> again = put(name, "{\"defaultLocale\":\"en\",\"locales\":{\"en\":{\"subject\":\"Stored again\","
                + "\"text\":\"Third ${n}\"}}}");
        assertThat(again.statusCode()).as(again.body()).isEqualTo(201);
        assertThat(version(again)).as("no version number used twice").isEqualTo(3);
        String afterDelete = "again." + run + "@to.example";
        assertThat(QueueApi.post("{\"from\":\"alice@sender.example\",\"to\":[\"" + afterDelete + "\"],\"template\":{\"name\":\""
                + name + "\",\"variables\":{\"n\":3}}}").statusCode()).isEqualTo(202);
        MimeMessage sent = arrived(afterDelete);
        assertThat(sent.getSubject()).isEqualTo("Stored again");
        assertThat(((String) sent.getContent()).strip()).isEqualTo("Third 3");
    }

    @Test
    void aMailMergeOfTenThousandRecipientsIsOneBatchRequest() throws Exception {
        String name = "merge-" + run;
        assertThat(put(name, "{\"defaultLocale\":\"en\",\"locales\":{\"en\":{\"subject\":\"Your code, ${first}\","
                + "\"text\":\"Dear ${first}, your code is ${code}.\"}}}").statusCode()).isEqualTo(201);
        String batch = IntStream.range(0, MERGE).mapToObj(i -> "{\"from\":\"alice@sender.example\",\"to\":[\"m" + i + "."
                        + run + "@merge.example\"],\"template\":{\"name\":\"" + name + "\",\"variables\":{\"first\":\"Reader "
                        + i + "\",\"code\":\"C" + i + "-" + run + "\"}}}")
                .collect(Collectors.joining(",", "[", "]"));

        HttpResponse<String> answer = QueueApi.postTo("/api/mails/batch", batch);
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(202);
        List<EnqueueReceipt> receipts = QueueApi.receipts(answer.body());
        assertThat(receipts).hasSize(MERGE);
        assertDeliveredExactlyOnce(receipts, Duration.ofMinutes(4));

        Map<String, String> bodies = new HashMap<>();
        for (MimeMessage m : SMTP.received()) {
            var to = m.getRecipients(Message.RecipientType.TO);
            String address = to == null ? "" : ((InternetAddress) to[0]).getAddress();
            if (address.endsWith("." + run + "@merge.example")) {
                bodies.put(address, ((String) m.getContent()).strip());
            }
        }
        assertThat(bodies).hasSize(MERGE);
        for (int i = 0; i < MERGE; i++) {
            assertThat(bodies.get("m" + i + "." + run + "@merge.example"))
                    .isEqualTo("Dear Reader " + i + ", your code is C" + i + "-" + run + ".");
        }
    }
}
