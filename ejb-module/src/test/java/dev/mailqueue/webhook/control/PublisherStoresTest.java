package dev.mailqueue.webhook.control;

import dev.mailqueue.api.WebhookDelivery;
import dev.mailqueue.api.EventRecord;
import dev.mailqueue.settings.control.InDoubtPolicy;
import dev.mailqueue.settings.control.RetryPolicy;
import dev.mailqueue.api.EventType;
import dev.mailqueue.queue.control.AttemptResult;
import dev.mailqueue.queue.control.Change;
import dev.mailqueue.queue.control.ClaimedMail;
import dev.mailqueue.queue.control.EventStore;
import dev.mailqueue.queue.control.Lease;
import dev.mailqueue.queue.control.MailLifecycle;
import dev.mailqueue.queue.control.NewMail;
import dev.mailqueue.queue.control.QueueTables;
import dev.mailqueue.queue.control.RecipientResult;
import dev.mailqueue.queue.control.SqlTime;
import dev.mailqueue.queue.control.Suppressed;
import dev.mailqueue.queue.control.SuppressionStore;
import dev.mailqueue.queue.control.Verdict;
import dev.mailqueue.queue.entity.RecipientStatus;
import dev.mailqueue.testsupport.QueueDatabase;
import dev.mailqueue.testsupport.TestMails;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import javax.sql.DataSource;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BiPredicate;

import static dev.mailqueue.testsupport.TestMails.mail;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The delivery events as the mails' log publishes them, on the real DDL (Derby by default; PostgreSQL and MariaDB
 * with {@code -Dmailqueue.test.db}): events written by the real stores in the transaction of their change, read
 * by a publisher's cursor that no late commit passes, one cursor write per round and no statement per event, and
 * the webhook deliveries parked when they fail, in order per mail.
 *
 * <p>On PostgreSQL a read waits for the oldest transaction running anywhere on the server (the horizon), so the
 * tests read until what they expect has come, within a bounded time, as other test runs may share the server.
 */
@Tag("database")
class PublisherStoresTest {

    static final Instant NOW = Instant.parse("2030-05-06T07:08:09Z");
    static final String OWNER = "host/server#9";
    static final String SERVER = "host/server";
    static final RetryPolicy RETRY = new RetryPolicy(300_000, 4_000_000, 0, 5);
    static final BiPredicate<EventType, String> ALL = (type, campaign) -> true;
    static final Duration PATIENCE = Duration.ofSeconds(20);

    @RegisterExtension
    static final QueueDatabase db = QueueDatabase.perTestClass();

    EventStore eventStore;
    EventCursorStore cursors;
    WebhookDeliveryStore deliveries;
    WebhookEndpointStore endpoints;
    WorkLeaseStore leases;
    Lease lease;
    int claims;
    ExecutorService threads;

    @BeforeEach
    void store() {
        eventStore = EventStore.on(db.tables());
        cursors = EventCursorStore.on(db.tables());
        deliveries = WebhookDeliveryStore.on(db.tables());
        endpoints = WebhookEndpointStore.on(db.tables());
        leases = WorkLeaseStore.on(db.tables());
        for (String table : List.of("WEBHOOK_DELIVERY", "EVENT_CURSOR", "WEBHOOK_ENDPOINT", "WORK_LEASE")) {
            db.update("DELETE FROM " + table);
        }
        lease = db.inTransaction(() -> db.claimStore().start(OWNER, NOW, NOW.plus(Duration.ofDays(1))));
        claims = 0;
        threads = Executors.newCachedThreadPool();
    }

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    // --- writing events through the real stores

    long enqueue(NewMail mail) {
        return db.inTransaction(() -> db.enqueueStore().enqueue(TestMails.groups(mail), SERVER)).get(0).get(0).id();
    }

    List<ClaimedMail> claim(Instant now, int limit) {
        return db.inTransaction(() -> db.claimStore().claim(lease, ++claims, SERVER, now, now.plusSeconds(60), limit, InDoubtPolicy.RESEND,
                TestMails.ACCOUNTS, false)).mails();
    }

    ClaimedMail claimed(List<ClaimedMail> mails, long id) {
        return mails.stream().filter(m -> m.id() == id).findFirst().orElseThrow();
    }

    void record(ClaimedMail mail, Lease by, Verdict verdict, Integer code, String enhanced, List<RecipientResult> recipients) {
        db.inTransaction(() -> {
            db.outcomeStore().apply(List.of(new Change.Attempted(new AttemptResult(mail.id(), by, SERVER, "mailqueue",
                    mail.attemptsRemaining(), null, NOW.plusSeconds(1), NOW.plusSeconds(2), verdict, code, code + " reply",
                    enhanced, verdict == Verdict.SENT ? null : "failed", recipients))), RETRY, InDoubtPolicy.RESEND, false);
            return null;
        });
    }

    void cancel(Long... ids) {
        db.inTransaction(() -> db.operatorStore().cancel(List.of(ids), MailLifecycle.CANCELLABLE, SERVER, "operator:test"));
    }

    /** @return the mail's log row ids, oldest first */
    List<Long> log(long mailId) {
        List<Long> ids = new ArrayList<>();
        try (Connection c = db.connect(); PreparedStatement s = c.prepareStatement(
                "SELECT ID FROM MAIL_ATTEMPT WHERE MAIL_ID = ? ORDER BY ID")) {
            s.setLong(1, mailId);
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    ids.add(r.getLong(1));
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return ids;
    }

    static long id(long logRow, int part) {
        return logRow * 128 + part;
    }

    static String typeAndRecipient(EventRecord e) {
        return e.type().wireName() + (e.recipient() == null ? "" : ":" + e.recipient());
    }

    /**
     * Reads and moves the cursor step by step until at least {@code expected} events came (or {@link #PATIENCE}
     * ran out): on PostgreSQL a step stops at the oldest transaction running on the server.
     */
    List<EventRecord> publish(String publisher, int expected, int limit) {
        List<EventRecord> events = new ArrayList<>();
        long until = System.nanoTime() + PATIENCE.toNanos();
        while (true) {
            EventCursorStore.Step step = db.inTransaction(() -> cursors.read(publisher, limit, NOW));
            events.addAll(step.events());
            db.inTransaction(() -> cursors.advance(step, NOW));
            if (events.size() >= expected && !step.more() || System.nanoTime() > until) {
                return events;
            }
            if (!step.more()) {
                sleep(50);
            }
        }
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    // --- the events of each change

    @Test
    void eachChangePublishesItsEventsWithTheirTypesRecipientsAndIdsInIdOrder() {
        assertThat(cursors.read("all", 100, NOW).events()).as("a new publisher starts now").isEmpty();
        long a = enqueue(TestMails.inCampaign(mail("a", 4, NOW), "spring", "order-17", List.of("x", "y")));
        long b = enqueue(TestMails.to(mail("b", 4, NOW), List.of("ok@x.example", "OK@x.example", "gone@x.example",
                "later@x.example"), List.of(), List.of()));
        db.inTransaction(() -> SuppressionStore.on(db.tables()).add("blocked@x.example", Suppressed.ALL,
                SuppressionStore.Reason.MANUAL, "test", NOW));
        long c = enqueue(TestMails.to(mail("c", 4, NOW), List.of("open@x.example", "blocked@x.example"), List.of(), List.of()));
        long d = enqueue(TestMails.due(mail("d", 4, NOW), NOW.plusSeconds(3600)));
        List<ClaimedMail> mails = claim(NOW, 10);
        assertThat(mails).extracting(ClaimedMail::id).containsExactlyInAnyOrder(a, b, c);
        record(claimed(mails, a), lease, Verdict.SENT, 250, null, List.of());
        record(claimed(mails, b), lease, Verdict.TRANSIENT, 450, "4.2.1", List.of(
                new RecipientResult("ok@x.example", RecipientStatus.SENT, 250, "250 ok", null),
                new RecipientResult("OK@x.example", RecipientStatus.SENT, 250, "250 ok", null),
                new RecipientResult("gone@x.example", RecipientStatus.REFUSED, 550, "550 5.1.1 gone", "5.1.1"),
                new RecipientResult("later@x.example", RecipientStatus.DEFERRED, 450, "450 later", "4.2.1")));
        cancel(d);
        db.inTransaction(() -> SuppressionStore.on(db.tables()).add("Leaver@X.example", "news",
                SuppressionStore.Reason.UNSUBSCRIBE, null, NOW));
        long unsubscribe = db.number("SELECT ID FROM MAIL_ATTEMPT WHERE MAIL_ID IS NULL");

        List<EventRecord> events = publish("all", 7, 100);

        assertThat(events).extracting(EventRecord::id).containsExactly(
                id(log(c).get(0), 0),                             // suppressed at enqueue
                id(log(a).get(0), 127),                           // sent
                id(log(b).get(0), 0), id(log(b).get(0), 2),       // gone, (later: no event), ok
                id(log(b).get(0), 127),                           // the mail is deferred
                id(log(d).get(0), 127),                           // cancelled
                id(unsubscribe, 127));
        assertThat(events).extracting(PublisherStoresTest::typeAndRecipient).containsExactly("suppressed:blocked@x.example",
                "sent", "refused:gone@x.example", "sent:ok@x.example", "deferred", "cancelled",
                "unsubscribed:Leaver@x.example");

        EventRecord sent = events.get(1);
        assertThat(sent.mailId()).isEqualTo(a);
        assertThat(sent.replyCode()).isEqualTo(250);
        assertThat(sent.detail()).as("the code is beside it").isEqualTo("reply");
        assertThat(sent.occurredAt()).isEqualTo(NOW.plusSeconds(2));
        assertThat(sent.reference()).isEqualTo("order-17");
        assertThat(sent.campaign()).isEqualTo("spring");
        assertThat(sent.tags()).containsExactly("x", "y");
        assertThat(sent.recipients()).containsExactly("rcpt@example.com");
        assertThat(sent.messageId()).isNotNull();
        EventRecord gone = events.get(2);
        assertThat(gone.replyCode()).isEqualTo(550);
        assertThat(gone.enhancedStatus()).isEqualTo("5.1.1");
        assertThat(gone.detail()).as("code and enhanced status are beside it").isEqualTo("gone");
        EventRecord deferred = events.get(4);
        assertThat(deferred.replyCode()).isEqualTo(450);
        assertThat(deferred.enhancedStatus()).isEqualTo("4.2.1");
        assertThat(deferred.nextAttemptAt()).isEqualTo(dueAt(b)).isAfter(NOW.plusSeconds(2));
        EventRecord left = events.get(6);
        assertThat(left.mailId()).isNull();
        assertThat(left.detail()).isEqualTo("news");
        assertThat(left.messageId()).isNull();

        assertThat(eventStore.eventsOf(b)).as("the mail's events, as published").isEqualTo(events.subList(2, 5));
        assertThat(eventStore.eventsOf(c)).extracting(PublisherStoresTest::typeAndRecipient).containsExactly("suppressed:blocked@x.example");
    }

    Instant dueAt(long mailId) {
        try (Connection c = db.connect(); PreparedStatement s = c.prepareStatement("SELECT DUE_AT FROM MAIL_QUEUE WHERE MAIL_ID = ?")) {
            s.setLong(1, mailId);
            try (ResultSet r = s.executeQuery()) {
                r.next();
                return SqlTime.get(r, 1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void anOutcomeWhoseLeaseWasLostAndAChangeThatRollsBackPublishNothing() {
        long id = enqueue(mail("lost", 4, NOW));
        ClaimedMail mail = claim(NOW, 1).get(0);
        record(mail, new Lease(lease.claimer() + 1_000, "someone/else#1"), Verdict.SENT, 250, null, List.of());
        assertThat(log(id)).as("the attempt is logged").hasSize(1);
        assertThat(eventStore.eventsOf(id)).as("but publishes nothing").isEmpty();

        assertThatThrownBy(() -> db.inTransaction(() -> {
            db.outcomeStore().apply(List.of(new Change.Attempted(new AttemptResult(id, lease, SERVER, "mailqueue", 4, null,
                    NOW, NOW, Verdict.PERMANENT, 550, "550 no", null, "refused", List.of()))), RETRY, InDoubtPolicy.RESEND,
                    false);
            throw new IllegalStateException("the commit never happens");
        })).hasMessageContaining("never happens");
        assertThat(eventStore.eventsOf(id)).isEmpty();
    }

    @Test
    void migratedOutboxEventsAreNotedRowsAndKeepTheirDetail() {
        long id = enqueue(mail("old", 4, NOW));
        String next = QueueDatabase.KIND.equals("postgresql") ? "nextval('mail_log_seq')" : "NEXT VALUE FOR MAIL_LOG_SEQ";
        db.update("INSERT INTO MAIL_ATTEMPT (ID, MAIL_ID, STARTED_AT, FINISHED_AT, SERVER_INSTANCE, LEASE_OWNER, OUTCOME,"
                + " SMTP_REPLY_CODE, ERROR, EVENT_TYPE) VALUES (" + next + ", ?, ?, ?, 'migrated', 'V13', 'NOTED', 250,"
                + " '250 queued as 1', 'SENT')", id, java.sql.Timestamp.from(NOW), java.sql.Timestamp.from(NOW));

        assertThat(eventStore.eventsOf(id)).singleElement().satisfies(e -> {
            assertThat(e.type()).isEqualTo(EventType.SENT);
            assertThat(e.detail()).isEqualTo("queued as 1");
            assertThat(e.id()).isEqualTo(id(log(id).get(0), 127));
        });
    }

    // --- the cursor

    /**
     * Transaction A writes a log row and stays open; B writes one and commits. A publisher must not pass A's row
     * once it commits: on PostgreSQL the horizon stops at A (B's row waits with it), on Derby and MariaDB B cannot
     * even take its id until A has committed (the event clock). The two touch no common row but the clock: each
     * is an unsubscribe of its own address.
     */
    @Test
    void aTransactionThatCommitsLateIsNotSkipped() throws Exception {
        cursors.read("late", 100, NOW);
        SuppressionStore suppressions = SuppressionStore.on(db.tables());
        CountDownLatch written = new CountDownLatch(1);
        CountDownLatch commit = new CountDownLatch(1);
        Future<?> a = threads.submit(() -> db.inTransaction(() -> {
            suppressions.add("a@x.example", "news", SuppressionStore.Reason.UNSUBSCRIBE, null, NOW);
            written.countDown();
            assertThat(commit.await(60, TimeUnit.SECONDS)).isTrue();
            return null;
        }));
        assertThat(written.await(30, TimeUnit.SECONDS)).isTrue();
        Future<?> b = threads.submit(() -> db.inTransaction(() -> suppressions.add("b@x.example", "news",
                SuppressionStore.Reason.UNSUBSCRIBE, null, NOW)));
        if (QueueDatabase.KIND.equals("postgresql")) {
            b.get(30, TimeUnit.SECONDS);
        } else {
            sleep(500);
            assertThat(b.isDone()).as("B waits for the event clock A holds").isFalse();
        }
        Future<List<EventRecord>> whileOpen = threads.submit(() -> {
            EventCursorStore.Step step = cursors.read("late", 100, NOW);
            cursors.advance(step, NOW);
            return step.events();
        });
        List<EventRecord> seen = new ArrayList<>();
        if (!QueueDatabase.isDerby()) { // Derby's read waits for A's row lock instead
            seen.addAll(whileOpen.get(30, TimeUnit.SECONDS));
            assertThat(seen).as("nothing is published while A is open").isEmpty();
        }
        commit.countDown();
        a.get(30, TimeUnit.SECONDS);
        b.get(30, TimeUnit.SECONDS);
        if (QueueDatabase.isDerby()) {
            seen.addAll(whileOpen.get(30, TimeUnit.SECONDS));
        }
        seen.addAll(publish("late", 2 - seen.size(), 100));

        assertThat(seen).extracting(EventRecord::recipient).as("A's event came, once, before B's")
                .containsExactly("a@x.example", "b@x.example");
        assertThat(seen).extracting(EventRecord::id).isSorted();
    }

    /**
     * A new publisher starts at the horizon: on PostgreSQL a transaction still running elsewhere on the server when
     * it starts holds the horizon back, and the events committed after that one began come too.
     */
    @Test
    void aNewPublisherGetsNoHistoryAndARefusedBatchIsReadAgain() {
        long old = enqueue(TestMails.due(mail("old", 4, NOW), NOW.plusSeconds(3600)));
        cancel(old);
        long later = enqueue(TestMails.due(mail("later", 4, NOW), NOW.plusSeconds(3600)));

        EventCursorStore.Step start = cursors.read("newcomer", 100, NOW);
        assertThat(start.events()).isEmpty();
        assertThat(start.moves()).isFalse();
        assertThat(db.number("SELECT POSITION FROM EVENT_CURSOR WHERE NAME = 'newcomer'")).isEqualTo(start.to());
        cancel(later);

        List<EventRecord> events = new ArrayList<>();
        long until = System.nanoTime() + PATIENCE.toNanos();
        EventCursorStore.Step step;
        do {
            step = cursors.read("newcomer", 100, NOW); // the topic refused: the cursor stays, the same events come again
            events = step.events();
        } while (!events.stream().map(EventRecord::mailId).toList().contains(later) && System.nanoTime() < until);
        if (QueueDatabase.KIND.equals("postgresql")) {
            assertThat(events).extracting(EventRecord::mailId).endsWith(later).isSubsetOf(old, later);
        } else {
            assertThat(events).extracting(EventRecord::mailId).containsExactly(later);
        }
        assertThat(cursors.read("newcomer", 100, NOW).events()).as("read again, not passed").isEqualTo(events);
        assertThat(cursors.advance(step, NOW)).isTrue();
        assertThat(cursors.advance(step, NOW)).as("a stale step moves nothing").isFalse();
        assertThat(cursors.read("newcomer", 100, NOW).events()).isEmpty();
    }

    /**
     * A limit stops a read between log rows (Derby, MariaDB) or between transactions (PostgreSQL, which takes a
     * transaction that wrote more than the limit whole); every event comes once, in id order.
     */
    @Test
    void aBacklogIsReadInStepsEveryEventOnceInIdOrder() {
        cursors.read("steps", 2, NOW);
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            ids.add(enqueue(TestMails.due(mail("backlog " + i, 4, NOW), NOW.plusSeconds(3600))));
        }
        cancel(ids.subList(0, 5).toArray(Long[]::new)); // one transaction, five rows
        ids.subList(5, 8).forEach(id -> cancel(id));

        EventCursorStore.Step first;
        long until = System.nanoTime() + PATIENCE.toNanos();
        do {
            first = cursors.read("steps", 2, NOW);
        } while (first.events().isEmpty() && System.nanoTime() < until);
        assertThat(first.more()).isTrue();
        assertThat(first.events()).hasSize(QueueDatabase.KIND.equals("postgresql") ? 5 : 2);
        EventCursorStore.Step taken = first;
        db.inTransaction(() -> cursors.advance(taken, NOW));
        List<EventRecord> events = new ArrayList<>(first.events());
        events.addAll(publish("steps", 8 - events.size(), 2));

        assertThat(events).extracting(EventRecord::mailId).containsExactlyElementsOf(ids);
        assertThat(events).extracting(EventRecord::id).isSorted();
    }

    /** Counts the statements each connection prepares. */
    static DataSource counting(DataSource real, List<String> statements) {
        return (DataSource) Proxy.newProxyInstance(PublisherStoresTest.class.getClassLoader(), new Class<?>[]{DataSource.class},
                (proxy, method, args) -> {
                    Object result = invoke(method, real, args);
                    if (!(result instanceof Connection c)) {
                        return result;
                    }
                    return Proxy.newProxyInstance(PublisherStoresTest.class.getClassLoader(), new Class<?>[]{Connection.class},
                            (p, m, a) -> {
                                if (m.getName().equals("prepareStatement") || m.getName().equals("prepareCall")) {
                                    statements.add(((String) a[0]).toUpperCase(Locale.ROOT));
                                } else if (m.getName().equals("createStatement")) {
                                    throw new AssertionError("plain statements are not counted");
                                }
                                return invoke(m, c, a);
                            });
                });
    }

    static Object invoke(java.lang.reflect.Method method, Object target, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    @Test
    void anEndpointsRoundMovesItsCursorOnceAndRunsNoStatementPerEvent() {
        List<String> statements = new CopyOnWriteArrayList<>();
        WebhookDeliveryStore counted = WebhookDeliveryStore.on(QueueTables.on(counting(db.dataSource(), statements)));
        counted.next("crm", ALL, 100, NOW);
        assertThat(db.number("SELECT COUNT(*) FROM EVENT_CURSOR WHERE NAME = 'webhook:crm'")).isEqualTo(1);

        List<Integer> perRound = new ArrayList<>();
        for (int events : List.of(3, 40)) {
            List<Long> ids = new ArrayList<>();
            for (int i = 0; i < events - 1; i++) {
                ids.add(enqueue(TestMails.due(mail("round " + i, 4, NOW), NOW.plusSeconds(3600))));
            }
            long sent = enqueue(TestMails.to(mail("with recipients", 4, NOW), List.of("r1@x.example", "r2@x.example"),
                    List.of(), List.of()));
            cancel(ids.toArray(Long[]::new));
            record(claim(NOW, 1).get(0), lease, Verdict.SENT, 250, null, List.of(
                    new RecipientResult("r1@x.example", RecipientStatus.SENT, 250, "ok", null),
                    new RecipientResult("r2@x.example", RecipientStatus.SENT, 250, "ok", null)));
            long position = db.number("SELECT POSITION FROM EVENT_CURSOR WHERE NAME = 'webhook:crm'");

            List<EventRecord> got = new ArrayList<>();
            long until = System.nanoTime() + PATIENCE.toNanos();
            while (got.size() < events + 1 && System.nanoTime() < until) {
                statements.clear();
                WebhookDeliveryStore.EndpointStep step = db.inTransaction(() -> counted.next("crm", ALL, 100, NOW));
                db.inTransaction(() -> counted.pass("crm", step.batch(), List.of(), NOW));
                got.addAll(step.batch().events());
            }
            assertThat(got).as("every event of the round, %s", statements).hasSize(events + 1);
            assertThat(got).filteredOn(e -> e.mailId() == sent).extracting(EventRecord::recipient)
                    .containsExactly("r1@x.example", "r2@x.example");
            assertThat(statements).as("one write: the cursor").filteredOn(s -> !s.startsWith("SELECT"))
                    .singleElement().satisfies(s -> assertThat(s).startsWith("UPDATE EVENT_CURSOR"));
            assertThat(db.number("SELECT POSITION FROM EVENT_CURSOR WHERE NAME = 'webhook:crm'")).isGreaterThan(position);
            perRound.add(statements.size());
        }
        assertThat(perRound.get(1)).as("statements of a round of 41 events, of 4: %s", perRound)
                .isLessThanOrEqualTo(perRound.get(0) + 1).isLessThan(12);
    }

    // --- webhook deliveries

    @Test
    void aFailedDeliveryIsParkedAndBacksOffAndItsMailsLaterEventsWaitBehindItInOrder() {
        deliveries.next("crm", ALL, 100, NOW);
        long m = enqueue(mail("m", 4, NOW));
        long n = enqueue(mail("n", 4, NOW));
        List<ClaimedMail> mails = claim(NOW, 2);
        record(claimed(mails, m), lease, Verdict.TRANSIENT, 451, null, List.of()); // m1: deferred
        record(claimed(mails, n), lease, Verdict.SENT, 250, null, List.of());      // n1: sent
        cancel(m);                                                                 // m2: cancelled
        WebhookDeliveryStore.EndpointStep step = step("crm", 3);
        List<EventRecord> events = step.batch().events();
        assertThat(events).extracting(EventRecord::mailId).containsExactly(m, n, m);
        long m1 = events.get(0).id();
        long n1 = events.get(1).id();
        long m2 = events.get(2).id();

        // The round: m1 fails, the rest of the batch is parked behind it, the cursor passes the batch.
        assertThat(db.inTransaction(() -> deliveries.pass("crm", step.batch(), List.of(
                WebhookDeliveryStore.Parked.failed(events.get(0), 500, "the receiver answered HTTP 500", NOW.plusSeconds(5)),
                WebhookDeliveryStore.Parked.behind(events.get(1)), WebhookDeliveryStore.Parked.behind(events.get(2))), NOW))).isTrue();
        assertThat(deliveries.deliveries("crm", null, 0, 10)).extracting(d -> d.eventId() + " " + d.type() + " " + d.status()
                + " " + d.attempts()).containsExactly(m2 + " CANCELLED PENDING 0", n1 + " SENT PENDING 0",
                m1 + " DEFERRED PENDING 1");
        assertThat(endpoints.state("crm")).satisfies(s -> {
            assertThat(s.pending()).isEqualTo(3);
            assertThat(s.cursor()).isEqualTo(step.batch().to());
            assertThat(s.cursorMovedAt()).isEqualTo(NOW);
        });

        assertThat(dueIds("crm", NOW.plusSeconds(1))).as("m1 backs off and m2 waits behind it").containsExactly(n1);
        deliveries.tried("crm", n1, NOW.plusSeconds(1), 204, null, null);
        assertThat(deliveries.deliveries("crm", null, 0, 10)).as("a delivered event leaves no row")
                .extracting(WebhookDelivery::eventId).containsExactly(m2, m1);
        assertThat(dueIds("crm", NOW.plusSeconds(5))).containsExactly(m1, m2);
        deliveries.tried("crm", m1, NOW.plusSeconds(5), null, "no answer", NOW.plusSeconds(15));
        assertThat(deliveries.deliveries("crm", "PENDING", 0, 10)).filteredOn(d -> d.eventId() == m1)
                .singleElement().satisfies(d -> assertThat(d.attempts()).isEqualTo(2));
        assertThat(dueIds("crm", NOW.plusSeconds(6))).isEmpty();

        // A new event of m comes from the cursor while m has parked deliveries: it must wait behind them.
        db.inTransaction(() -> db.operatorStore().requeue(List.of(m), NOW, 3, null, SERVER, "operator:test"));
        cancel(m);                                                                 // m3: cancelled again
        WebhookDeliveryStore.EndpointStep next = step("crm", 1);
        assertThat(next.waiting()).containsExactly(m);
        long m3 = next.batch().events().get(0).id();
        db.inTransaction(() -> deliveries.pass("crm", next.batch(), List.of(WebhookDeliveryStore.Parked.behind(next.batch().events().get(0))),
                NOW.plusSeconds(6)));

        deliveries.tried("crm", m1, NOW.plusSeconds(15), 204, null, null);
        assertThat(dueIds("crm", NOW.plusSeconds(15))).containsExactly(m2, m3);
        deliveries.tried("crm", m2, NOW.plusSeconds(16), 400, "the receiver answered HTTP 400", null); // given up
        assertThat(dueIds("crm", NOW.plusSeconds(16))).as("a given-up delivery holds nothing back").containsExactly(m3);
        assertThat(deliveries.deliveries("crm", "FAILED", 0, 10)).extracting(WebhookDelivery::eventId).containsExactly(m2);
        assertThat(endpoints.state("crm")).satisfies(s -> {
            assertThat(s.pending()).isEqualTo(1);
            assertThat(s.failed()).isEqualTo(1);
        });
    }

    WebhookDeliveryStore.EndpointStep step(String endpoint, int events) {
        long until = System.nanoTime() + PATIENCE.toNanos();
        while (true) {
            WebhookDeliveryStore.EndpointStep step = db.inTransaction(() -> deliveries.next(endpoint, ALL, 100, NOW));
            if (step.batch().events().size() >= events || System.nanoTime() > until) {
                return step;
            }
            sleep(50);
        }
    }

    List<Long> dueIds(String endpoint, Instant now) {
        return deliveries.due(endpoint, now, 10).stream().map(d -> d.event().id()).toList();
    }

    @Test
    void anEndpointGetsTheEventsItWantsAndARedeliveryParksADeliveredEventAgain() {
        deliveries.next("crm", ALL, 100, NOW);
        long news = enqueue(TestMails.inCampaign(TestMails.due(mail("news", 4, NOW), NOW.plusSeconds(3600)), "news", null, List.of()));
        long other = enqueue(TestMails.due(mail("other", 4, NOW), NOW.plusSeconds(3600)));
        cancel(news, other);
        List<EventRecord> wanted = new ArrayList<>();
        long until = System.nanoTime() + PATIENCE.toNanos();
        while (wanted.isEmpty() && System.nanoTime() < until) {
            WebhookDeliveryStore.EndpointStep step = db.inTransaction(() -> deliveries.next("crm", (type, campaign) -> "news".equals(campaign)
                    && type == EventType.CANCELLED, 100, NOW));
            db.inTransaction(() -> deliveries.pass("crm", step.batch(), List.of(), NOW));
            wanted.addAll(step.batch().events());
        }
        assertThat(wanted).extracting(EventRecord::mailId).containsExactly(news);

        long delivered = wanted.get(0).id();
        assertThat(deliveries.redeliver("crm", delivered, NOW)).isTrue();
        assertThat(dueIds("crm", NOW)).containsExactly(delivered);
        assertThat(deliveries.redeliver("crm", delivered, NOW.plusSeconds(1))).as("once parked, put in line again").isTrue();
        assertThat(deliveries.redeliver("crm", delivered + 1, NOW)).as("no such event").isFalse();
        assertThat(deliveries.redeliver("crm", 12_345 * 128 + 127, NOW)).as("no such log row").isFalse();
    }

    @Test
    void aDeletedMailTakesItsEventsAndParkedDeliveriesWithItAndRetentionThoseOfNoMail() {
        deliveries.next("crm", ALL, 100, NOW);
        long id = enqueue(TestMails.due(mail("deleted later", 4, NOW), NOW.plusSeconds(3600)));
        cancel(id);
        db.inTransaction(() -> SuppressionStore.on(db.tables()).add("gone@x.example", Suppressed.ALL,
                SuppressionStore.Reason.UNSUBSCRIBE, null, NOW.minus(Duration.ofDays(40))));
        WebhookDeliveryStore.EndpointStep step = step("crm", 2);
        db.inTransaction(() -> deliveries.pass("crm", step.batch(), step.batch().events().stream().map(WebhookDeliveryStore.Parked::behind)
                .toList(), NOW));
        assertThat(db.number("SELECT COUNT(*) FROM WEBHOOK_DELIVERY")).isEqualTo(2);

        assertThat(db.inTransaction(() -> db.operatorStore().delete(List.of(id)))).isEqualTo(1);
        assertThat(eventStore.eventsOf(id)).isEmpty();
        assertThat(db.number("SELECT COUNT(*) FROM WEBHOOK_DELIVERY WHERE MAIL_ID = ?", id)).isZero();
        assertThat(db.inTransaction(() -> db.operatorStore().deleteMaillessEventsBefore(NOW.minus(Duration.ofDays(30)))))
                .isEqualTo(1);
        assertThat(db.number("SELECT COUNT(*) FROM WEBHOOK_DELIVERY")).isZero();
    }

    @Test
    void aParkedDeliveryWhoseEventIsGoneIsDropped() {
        db.update("INSERT INTO WEBHOOK_DELIVERY (ENDPOINT, EVENT_ID, ATTEMPT_ID, MAIL_ID, STATUS, ATTEMPTS, CREATED_AT,"
                + " NEXT_ATTEMPT_AT) VALUES ('crm', ?, 999, NULL, 'PENDING', 0, ?, ?)", 999L * 128 + 127,
                java.sql.Timestamp.from(NOW.minus(Duration.ofDays(1))), java.sql.Timestamp.from(NOW.minus(Duration.ofDays(1))));
        assertThat(deliveries.due("crm", NOW, 10)).isEmpty();
        assertThat(db.number("SELECT COUNT(*) FROM WEBHOOK_DELIVERY")).isZero();
    }

    // --- endpoint health and the work lease

    @Test
    void anEndpointFailingLongEnoughIsDisabledUntilEnabledAndASuccessClearsItsFailure() {
        assertThat(endpoints.noteEndpoint("flaky", false, NOW, 60_000)).isFalse();
        assertThat(endpoints.noteEndpoint("flaky", true, NOW.plusSeconds(30), 60_000)).isFalse();
        assertThat(endpoints.noteEndpoint("flaky", false, NOW.plusSeconds(40), 60_000)).isFalse();
        assertThat(endpoints.noteEndpoint("flaky", false, NOW.plusSeconds(99), 60_000)).isFalse();
        assertThat(endpoints.noteEndpoint("flaky", false, NOW.plusSeconds(100), 60_000)).isTrue();
        assertThat(endpoints.state("flaky").failingSince()).isEqualTo(NOW.plusSeconds(40));
        assertThat(endpoints.state("flaky").cursor()).as("no round yet").isNull();
        assertThat(endpoints.enable("flaky")).isTrue();
        assertThat(endpoints.state("flaky").disabledAt()).isNull();
    }

    @Test
    void oneServerAtATimeHoldsTheWorkLeaseUntilItRunsOut() {
        assertThat(leases.lease("test-work", "a", NOW, NOW.plusSeconds(30))).isTrue();
        assertThat(leases.lease("test-work", "b", NOW.plusSeconds(10), NOW.plusSeconds(40))).isFalse();
        assertThat(leases.lease("test-work", "a", NOW.plusSeconds(20), NOW.plusSeconds(50))).isTrue();
        assertThat(leases.lease("test-work", "b", NOW.plusSeconds(51), NOW.plusSeconds(80))).isTrue();
    }
}
