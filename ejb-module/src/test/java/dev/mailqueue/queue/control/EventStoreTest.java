package dev.mailqueue.queue.control;

import dev.mailqueue.api.EventType;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.mail.entity.RecipientStatus;
import dev.mailqueue.testsupport.QueueDatabase;
import dev.mailqueue.testsupport.TestMails;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import static dev.mailqueue.testsupport.TestMails.mail;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The outbox on the real schema: each state change writes its events in its own transaction (none when
 * it rolls back or its lease was lost), events are handed to the endpoints that want them, and an
 * endpoint gets one mail's events in order.
 */
class EventStoreTest {

    static final Instant NOW = Instant.parse("2030-05-06T07:08:09Z");
    static final String OWNER = "host/server#9";
    static final RetryPolicy RETRY = new RetryPolicy(300_000, 4_000_000, 0, 5);

    @RegisterExtension
    static final QueueDatabase db = QueueDatabase.perTestClass();

    EventStore cut;
    ClaimStore claims;
    OutcomeStore outcomes;

    @BeforeEach
    void store() {
        cut = EventStore.on(db.tables());
        claims = db.claimStore();
        outcomes = db.outcomeStore();
        db.update("DELETE FROM WEBHOOK_DELIVERY");
        db.update("UPDATE MAIL_EVENT SET PUBLISHED = 1");
    }

    ClaimedMail leased(NewMail mail) {
        db.inTransaction(() -> db.enqueueStore().enqueue(TestMails.groups(mail)));
        return db.inTransaction(() -> claims.claim(OWNER, "host/server", NOW, NOW.plusSeconds(60), 1,
                InDoubtPolicy.RESEND, TestMails.ACCOUNTS)).mails().get(0);
    }

    void record(String owner, ClaimedMail mail, Verdict verdict, Integer code, List<RecipientResult> recipients) {
        db.inTransaction(() -> {
            outcomes.apply(List.of(new Change.Attempted(new AttemptResult(mail.id(), owner, "host/server", "mailqueue",
                    mail.attemptsRemaining(), null, NOW.plusSeconds(1), NOW.plusSeconds(2), verdict, code,
                    code + " reply", null, verdict == Verdict.SENT ? null : "failed", recipients))), RETRY,
                    InDoubtPolicy.RESEND, false);
            return null;
        });
    }

    List<String> types(long mailId) {
        return cut.eventsOf(mailId).stream().map(e -> e.type().wireName() + (e.recipient() == null ? "" : ":" + e.recipient()))
                .toList();
    }

    @Test
    void aSentMailHasOneSentEventWithItsReplyReferenceCampaignAndTags() {
        ClaimedMail mail = leased(TestMails.inCampaign(mail("sent", 4, NOW), "spring", "order-17", List.of("a", "b")));
        record(OWNER, mail, Verdict.SENT, 250, List.of());

        List<EventRecord> events = cut.eventsOf(mail.id());
        assertThat(events).hasSize(1);
        EventRecord sent = events.get(0);
        assertThat(sent.type()).isEqualTo(EventType.SENT);
        assertThat(sent.replyCode()).isEqualTo(250);
        assertThat(sent.messageId()).isEqualTo(mail.messageId());
        assertThat(sent.reference()).isEqualTo("order-17");
        assertThat(sent.campaign()).isEqualTo("spring");
        assertThat(sent.tags()).containsExactly("a", "b");
        assertThat(sent.recipients()).containsExactly("rcpt@example.com");
        assertThat(sent.occurredAt()).isEqualTo(NOW.plusSeconds(2));
    }

    @Test
    void recipientsTheServerTreatedApartHaveEventsOfTheirOwnAndTheMailIsDeferredWithItsNextAttempt() {
        ClaimedMail mail = leased(TestMails.to(mail("mixed", 4, NOW), List.of("ok@x.example", "OK@x.example",
                "gone@x.example", "later@x.example"), List.of(), List.of()));
        record(OWNER, mail, Verdict.TRANSIENT, 450, List.of(
                new RecipientResult("ok@x.example", RecipientStatus.SENT, 250, "250 ok", null),
                new RecipientResult("OK@x.example", RecipientStatus.SENT, 250, "250 ok", null),
                new RecipientResult("gone@x.example", RecipientStatus.REFUSED, 550, "550 5.1.1 gone", "5.1.1"),
                new RecipientResult("later@x.example", RecipientStatus.DEFERRED, 450, "450 later", "4.2.1")));

        assertThat(types(mail.id())).containsExactly("sent:ok@x.example", "refused:gone@x.example", "deferred");
        EventRecord deferred = cut.eventsOf(mail.id()).get(2);
        assertThat(deferred.nextAttemptAt()).isEqualTo(instantOf(mail.id())).isAfter(NOW.plusSeconds(2));
        assertThat(cut.eventsOf(mail.id()).get(1).enhancedStatus()).isEqualTo("5.1.1");
    }

    Instant instantOf(long id) {
        try (var c = db.connect(); var s = c.prepareStatement("SELECT NOT_BEFORE FROM MAIL_MESSAGE WHERE ID = ?")) {
            s.setLong(1, id);
            try (var r = s.executeQuery()) {
                r.next();
                return SqlTime.get(r, 1);
            }
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void anOutcomeWhoseLeaseWasLostAndAChangeThatRollsBackWriteNoEvent() {
        ClaimedMail mail = leased(mail("lost", 4, NOW));
        record("someone/else#1", mail, Verdict.SENT, 250, List.of());
        assertThat(cut.eventsOf(mail.id())).isEmpty();

        assertThatThrownBy(() -> db.inTransaction(() -> {
            outcomes.apply(List.of(new Change.Attempted(new AttemptResult(mail.id(), OWNER, "host/server", "mailqueue",
                    4, null, NOW, NOW, Verdict.PERMANENT, 550, "550 no", null, "refused", List.of()))), RETRY,
                    InDoubtPolicy.RESEND, false);
            throw new IllegalStateException("the commit never happens");
        })).hasMessageContaining("never happens");
        assertThat(cut.eventsOf(mail.id())).isEmpty();
        assertThat(db.text("SELECT STATUS FROM MAIL_MESSAGE WHERE ID = ?", mail.id())).isEqualTo("SENDING");
    }

    @Test
    void aCancelWritesACancelledEventForEachMailItCancelledOnly() {
        long queued = db.inTransaction(() -> db.enqueueStore().enqueue(TestMails.groups(mail("to cancel", 4, NOW.plusSeconds(3600)))))
                .get(0).get(0).id();
        ClaimedMail sending = leased(mail("being sent", 9, NOW));
        int cancelled = db.inTransaction(() -> db.operatorStore().cancel(List.of(queued, sending.id()), OperatorStore.CANCELLABLE));
        assertThat(cancelled).isEqualTo(1);
        assertThat(types(queued)).containsExactly("cancelled");
        assertThat(types(sending.id())).isEmpty();
    }

    @Test
    void aDeletedMailTakesItsEventsAndTheirDeliveriesWithIt() {
        ClaimedMail mail = leased(mail("deleted later", 4, NOW));
        record(OWNER, mail, Verdict.SENT, 250, List.of());
        db.inTransaction(() -> cut.publish(100, (t, c) -> List.of("crm"), NOW));
        assertThat(db.number("SELECT COUNT(*) FROM WEBHOOK_DELIVERY WHERE MAIL_ID = ?", mail.id())).isEqualTo(1);

        assertThat(db.inTransaction(() -> db.operatorStore().delete(List.of(mail.id())))).isEqualTo(1);
        assertThat(cut.eventsOf(mail.id())).isEmpty();
        assertThat(db.number("SELECT COUNT(*) FROM WEBHOOK_DELIVERY WHERE MAIL_ID = ?", mail.id())).isZero();
    }

    @Test
    void eventsGoToTheEndpointsThatWantThemAndOneMailsEventsInOrder() {
        ClaimedMail mail = leased(TestMails.inCampaign(mail("ordered", 4, NOW), "news", null, List.of()));
        record(OWNER, mail, Verdict.TRANSIENT, 451, List.of());
        db.update("UPDATE MAIL_MESSAGE SET STATUS = 'QUEUED', NOT_BEFORE = ? WHERE ID = ?", java.sql.Timestamp.valueOf("2030-05-06 07:08:09"), mail.id());
        ClaimedMail again = db.inTransaction(() -> claims.claim(OWNER, "host/server", NOW.plusSeconds(10), NOW.plusSeconds(70), 1,
                InDoubtPolicy.RESEND, TestMails.ACCOUNTS)).mails().get(0);
        record(OWNER, again, Verdict.SENT, 250, List.of());

        int published = db.inTransaction(() -> cut.publish(100, (type, campaign) ->
                "news".equals(campaign) ? List.of("crm", "audit") : List.of("audit"), NOW));
        assertThat(published).isEqualTo(2);
        assertThat(db.inTransaction(() -> cut.publish(100, (t, c) -> List.of("crm"), NOW))).isZero();

        List<EventStore.Due> due = cut.due("crm", NOW, 10);
        assertThat(due).extracting(d -> d.event().type()).containsExactly(EventType.DEFERRED);
        long first = due.get(0).event().id();
        cut.tried("crm", first, NOW, 500, "the receiver answered HTTP 500", NOW.plusSeconds(5));
        assertThat(cut.due("crm", NOW.plusSeconds(1), 10)).isEmpty(); // the sent event waits for the deferred one
        assertThat(cut.due("crm", NOW.plusSeconds(5), 10)).extracting(d -> d.event().id()).containsExactly(first);

        cut.tried("crm", first, NOW.plusSeconds(5), 204, null, null);
        assertThat(cut.due("crm", NOW.plusSeconds(5), 10)).extracting(d -> d.event().type()).containsExactly(EventType.SENT);
        assertThat(cut.deliveries("crm", null, 0, 10)).extracting(EventStore.Delivery::status)
                .containsExactly("PENDING", "DELIVERED");
        assertThat(cut.deliveries("crm", "DELIVERED", 0, 10).get(0).attempts()).isEqualTo(2);
    }

    /** The topic's path: read the unpublished in order, publish exactly those; one written meanwhile waits. */
    @Test
    void eventsReadForTheTopicArePublishedByIdAndOneWrittenMeanwhileWaitsForTheNextStep() {
        db.inTransaction(() -> cut.publish(1000, (t, c) -> List.<String>of(), NOW)); // what earlier tests left
        ClaimedMail first = leased(TestMails.inCampaign(mail("topic-1", 4, NOW), "news", "order-1", List.of()));
        record(OWNER, first, Verdict.SENT, 250, List.of());

        List<EventRecord> batch = cut.unpublished(100);
        assertThat(batch).singleElement().satisfies(e -> {
            assertThat(e.type()).isEqualTo(EventType.SENT);
            assertThat(e.mailId()).isEqualTo(first.id());
            assertThat(e.reference()).isEqualTo("order-1");
            assertThat(e.campaign()).isEqualTo("news");
        });
        ClaimedMail second = leased(mail("topic-2", 4, NOW));
        record(OWNER, second, Verdict.SENT, 250, List.of());

        assertThat(db.inTransaction(() -> cut.publish(batch.stream().map(EventRecord::id).toList(),
                (t, c) -> List.of("crm"), NOW))).isEqualTo(1);
        assertThat(cut.unpublished(100)).extracting(EventRecord::mailId).containsExactly(second.id());
        assertThat(cut.due("crm", NOW, 10)).extracting(d -> d.event().mailId()).containsExactly(first.id());
    }

    @Test
    void anEndpointFailingLongEnoughIsDisabledUntilEnabledAndASuccessClearsItsFailure() {
        assertThat(cut.noteEndpoint("flaky", false, NOW, 60_000)).isFalse();
        assertThat(cut.noteEndpoint("flaky", true, NOW.plusSeconds(30), 60_000)).isFalse();
        assertThat(cut.noteEndpoint("flaky", false, NOW.plusSeconds(40), 60_000)).isFalse();
        assertThat(cut.noteEndpoint("flaky", false, NOW.plusSeconds(99), 60_000)).isFalse();
        assertThat(cut.noteEndpoint("flaky", false, NOW.plusSeconds(100), 60_000)).isTrue();
        assertThat(cut.state("flaky").failingSince()).isEqualTo(NOW.plusSeconds(40));
        assertThat(cut.enable("flaky")).isTrue();
        assertThat(cut.state("flaky").disabledAt()).isNull();
    }

    @Test
    void oneServerAtATimeHoldsTheWorkLeaseUntilItRunsOut() {
        assertThat(cut.lease("test-work", "a", NOW, NOW.plusSeconds(30))).isTrue();
        assertThat(cut.lease("test-work", "b", NOW.plusSeconds(10), NOW.plusSeconds(40))).isFalse();
        assertThat(cut.lease("test-work", "a", NOW.plusSeconds(20), NOW.plusSeconds(50))).isTrue();
        assertThat(cut.lease("test-work", "b", NOW.plusSeconds(51), NOW.plusSeconds(80))).isTrue();
    }

    @Test
    void aPausedCampaignsMailWaitsQueuedUntilResumedAndACancelTakesAllItHasWaiting() {
        CampaignStore campaigns = CampaignStore.on(db.tables(), db.operatorStore());
        db.update("UPDATE MAIL_MESSAGE SET STATUS = 'CANCELLED' WHERE STATUS = 'QUEUED'");
        for (int i = 0; i < 3; i++) {
            db.inTransaction(() -> db.enqueueStore().enqueue(TestMails.groups(
                    TestMails.inCampaign(mail("campaign " + System.nanoTime(), 4, NOW), "autumn", null, List.of()))));
        }
        assertThat(db.inTransaction(() -> campaigns.pause("autumn", "operator", NOW))).isTrue();
        assertThat(db.inTransaction(() -> campaigns.pause("autumn", "operator", NOW))).isFalse();
        assertThat(db.inTransaction(() -> claims.claim(OWNER, "host/server", NOW, NOW.plusSeconds(60), 10,
                InDoubtPolicy.RESEND, TestMails.ACCOUNTS)).mails()).isEmpty();

        assertThat(db.inTransaction(() -> campaigns.resume("autumn"))).isTrue();
        assertThat(db.inTransaction(() -> claims.claim(OWNER, "host/server", NOW, NOW.plusSeconds(60), 1,
                InDoubtPolicy.RESEND, TestMails.ACCOUNTS)).mails()).hasSize(1);

        assertThat(db.inTransaction(() -> campaigns.cancel("autumn"))).isEqualTo(2);
        Map<MailStatus, Long> counts = campaigns.counts("autumn");
        assertThat(counts).containsEntry(MailStatus.CANCELLED, 2L).containsEntry(MailStatus.SENDING, 1L);
    }
}
