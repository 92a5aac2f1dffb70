package dev.mailqueue.it;

import dev.mailqueue.api.EnqueueReceipt;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.api.MailStatus;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Jakarta Messaging: a message-driven bean of another application on the same Liberty (deployed beside
 * the queue for this class) receives the delivery events from the topic jms/mailqueue/events on Liberty's
 * embedded messaging engine, each as the webhook body with its event id and type as properties, a mail's
 * events in the order they happened.
 */
class EventTopicIT extends QueueServerIT {

    static final String RUN = Long.toString(System.currentTimeMillis(), 36);

    @Deployment(name = "events-subscriber", order = 3, testable = false)
    static WebArchive subscriber() {
        return Deployments.eventSubscriber();
    }

    @Test
    void aMessageDrivenBeanOfAnotherApplicationReceivesAMailsEventsInOrder() {
        String refused = "bounce+" + RUN + "@simulator.mailqueue.test";
        EnqueueReceipt receipt = QueueApi.enqueue(new MailRequest().from("events@sender.example")
                .to("reader." + RUN + "@events.example", refused).subject("events on a topic").text("x")
                .reference("order-" + RUN));
        QueueApi.awaitStatus(receipt.getId(), MailStatus.SENT, Duration.ofSeconds(30));

        String mailId = "\"mailId\":" + receipt.getId() + ",";
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            List<String> ours = received().stream().filter(line -> line.contains(mailId)).toList();
            assertThat(ours).as("the mail's events on the topic").hasSize(2);
            assertThat(ours.get(0)).matches("evt_\\d+ (sent|refused) .*").contains("\"reference\":\"order-" + RUN + "\"");
            assertThat(ours).anySatisfy(line -> assertThat(line).startsWith("evt_").contains(" sent ")
                    .contains("\"recipient\":\"reader." + RUN + "@events.example\""));
            assertThat(ours).anySatisfy(line -> assertThat(line).contains(" refused ").contains(refused));
            long first = Long.parseLong(ours.get(0).substring(4, ours.get(0).indexOf(' ')));
            long second = Long.parseLong(ours.get(1).substring(4, ours.get(1).indexOf(' ')));
            assertThat(first).as("log order").isLessThan(second);
        });
    }

    private static List<String> received() {
        HttpResponse<String> response = QueueApi.get("/events-subscriber/received");
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return response.body().lines().toList();
    }
}
