package dev.mailqueue.it;

import dev.mailqueue.api.EnqueueReceipt;
import dev.mailqueue.api.MailRequest;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Stopping "the wrong mailing" in one action: a campaign of 1,000 mails enqueued while it is paused waits
 * QUEUED (no server claims it); one cancel call cancels all 1,000, each with a {@code cancelled} event, and
 * not one reaches the SMTP server.
 */
class CampaignIT extends QueueServerIT {

    static final String RUN = Long.toString(System.currentTimeMillis(), 36);

    @Test
    void aPausedCampaignOfAThousandMailsIsCancelledInOneCallAndNothingIsSent() throws Exception {
        String campaign = "wrong-mailing-" + RUN;
        HttpResponse<String> paused = QueueApi.sendAs(TestUser.ADMIN, "POST", "/api/admin/campaigns/" + campaign + "/pause");
        assertThat(paused.statusCode()).as(paused.body()).isEqualTo(200);
        assertThat(QueueApi.jsonObject(paused.body())).containsEntry("paused", true);

        List<Long> ids = new ArrayList<>();
        for (int batch = 0; batch < 10; batch++) {
            List<String> mails = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                mails.add(QueueApi.toJson(new MailRequest().from("news@sender.example")
                        .to("reader" + (batch * 100 + i) + "." + RUN + "@campaign.example")
                        .subject("Spring sale").text("x").campaign(campaign)));
            }
            HttpResponse<String> response = QueueApi.postTo("/api/mails/batch", "[" + String.join(",", mails) + "]");
            assertThat(response.statusCode()).as(response.body()).isEqualTo(202);
            QueueApi.receipts(response.body()).stream().map(EnqueueReceipt::getId).forEach(ids::add);
        }
        Thread.sleep(3_000); // the dispatcher's rounds run meanwhile (every second on the test servers)
        assertThat(counts(state(campaign, "GET", ""))).as("nothing claimed while paused").containsOnly(Map.entry("QUEUED", 1000L));

        Map<String, Object> cancelled = state(campaign, "POST", "/cancel");
        assertThat(((Number) cancelled.get("cancelled")).intValue()).isEqualTo(1000);
        assertThat(counts(cancelled)).containsOnly(Map.entry("CANCELLED", 1000L));
        HttpResponse<String> events = QueueApi.get("/api/mails/" + ids.get(0) + "/events");
        assertThat(events.body()).contains("\"type\":\"cancelled\"");

        assertThat(state(campaign, "POST", "/resume")).containsEntry("paused", false);
        Thread.sleep(2_000);
        assertThat(SMTP.inbox("reader0." + RUN + "@campaign.example")).isEmpty();
        assertThat(SMTP.inbox("reader999." + RUN + "@campaign.example")).isEmpty();
        assertThat(counts(state(campaign, "GET", ""))).containsOnly(Map.entry("CANCELLED", 1000L));
    }

    static Map<String, Object> state(String campaign, String method, String action) {
        HttpResponse<String> response = method.equals("GET")
                ? QueueApi.getAs(TestUser.ADMIN, QueueApi.BASE, "/api/admin/campaigns/" + campaign)
                : QueueApi.sendAs(TestUser.ADMIN, method, "/api/admin/campaigns/" + campaign + action);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return QueueApi.jsonObject(response.body());
    }

    @SuppressWarnings("unchecked")
    static Map<String, Long> counts(Map<String, Object> state) {
        Map<String, Long> counts = new java.util.HashMap<>();
        ((Map<String, Object>) state.get("counts")).forEach((k, v) -> counts.put(k, ((Number) v).longValue()));
        return counts;
    }
}
