package dev.mailqueue.queue.control;

import dev.mailqueue.settings.control.InDoubtPolicy;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.queue.entity.RecipientStatus;
import dev.mailqueue.testsupport.QueueDatabase;
import dev.mailqueue.testsupport.TestMails;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static dev.mailqueue.testsupport.TestMails.mail;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The claim on the real schema and database: which mails it takes and in which order, that it writes only the narrow
 * queue rows (never the mail), that it leaves alone what is not due or cannot be sent now, that two claimers never
 * share a mail, that it takes back the mail of dead claimers (the first unrecorded one in their send order in doubt,
 * the others as they were), and that a live claimer's renewed lease is never taken back.
 */
@Tag("database")
class ClaimStoreTest {

    static final Instant NOW = Instant.parse("2030-03-14T09:26:53Z");
    static final long LEASE_MS = 60_000;

    @RegisterExtension
    static final QueueDatabase db = QueueDatabase.perTestClass();

    ClaimStore cut;
    EnqueueStore enqueuer;
    OutcomeStore outcomes;

    @BeforeEach
    void store() {
        cut = db.claimStore();
        enqueuer = db.enqueueStore();
        outcomes = db.outcomeStore();
    }

    List<Long> enqueue(NewMail... mails) {
        return db.inTransaction(() -> enqueuer.enqueue(TestMails.groups(mails), "host/server")).stream()
                .map(g -> g.get(0).id()).toList();
    }

    /** A claimer whose lease runs from {@code now} for the lease time. */
    Lease start(String owner, Instant now) {
        return db.inTransaction(() -> cut.start(owner, now, now.plusMillis(LEASE_MS)));
    }

    ClaimStore.Claim claim(Lease lease, int claimNo, int limit, Instant now) {
        return claim(lease, claimNo, limit, now, InDoubtPolicy.RESEND, TestMails.ACCOUNTS, true);
    }

    ClaimStore.Claim claim(Lease lease, int claimNo, int limit, Instant now, InDoubtPolicy inDoubt, AccountFilter accounts,
                           boolean recover) {
        return db.inTransaction(() -> cut.claim(lease, claimNo, "host/server", now, now.plusMillis(LEASE_MS), limit, inDoubt, accounts, recover));
    }

    /** A claim of a claimer whose lease still runs long enough: it leaves the lease as it is. */
    ClaimStore.Claim claimWithoutRenewal(Lease lease, int claimNo, int limit, Instant now) {
        return db.inTransaction(() -> cut.claim(lease, claimNo, "host/server", now, null, limit, InDoubtPolicy.RESEND,
                TestMails.ACCOUNTS, false));
    }

    String status(long id) {
        return db.text("SELECT STATUS FROM MAIL_STATE WHERE MAIL_ID = ?", id);
    }

    /** Frees every claimed mail again, as a claimer's release would. */
    void releaseAll() {
        db.update("UPDATE MAIL_QUEUE SET CLAIMER = NULL, CLAIM_NO = NULL");
    }

    @Test
    void claimTakesTheBestDueMailsFirstUpToTheLimitAndWritesOnlyTheQueueRows() {
        List<Long> ids = enqueue(
                mail("old normal, first id", 4, NOW.minusSeconds(180)),
                mail("urgent, newest", 9, NOW.minusSeconds(60)),
                mail("oldest normal", 4, NOW.minusSeconds(300)),
                mail("old normal, second id", 4, NOW.minusSeconds(180)),
                mail("bulk, oldest of all", 0, NOW.minusSeconds(600)));
        String contentBefore = db.text("SELECT MIN(SUBJECT) FROM MAIL_MESSAGE");
        Lease first = start("host/server#1", NOW);

        ClaimStore.Claim claim = claim(first, 1, 3, NOW);

        assertThat(claim.mails()).extracting(ClaimedMail::subject)
                .containsExactly("urgent, newest", "oldest normal", "old normal, first id");
        for (ClaimedMail mail : claim.mails()) {
            assertThat(status(mail.id())).isEqualTo("SENDING");
            assertThat(db.number("SELECT CLAIMER FROM MAIL_QUEUE WHERE MAIL_ID = ?", mail.id())).isEqualTo(first.claimer());
            assertThat(db.number("SELECT CLAIM_NO FROM MAIL_QUEUE WHERE MAIL_ID = ?", mail.id())).isEqualTo(1);
        }
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_QUEUE WHERE CLAIMER IS NULL")).isEqualTo(2);
        assertThat(db.text("SELECT MIN(SUBJECT) FROM MAIL_MESSAGE")).isEqualTo(contentBefore);
        assertThat(ids).hasSize(5);
        assertThat(claim(start("host/server#2", NOW), 1, 10, NOW).mails()).extracting(ClaimedMail::subject)
                .containsExactly("old normal, second id", "bulk, oldest of all");
    }

    @Test
    void aLeaseRunsOneLeaseTimeFromItsStartAndARenewalMovesIt() throws Exception {
        Lease lease = start("host/server#1", NOW);
        assertThat(expiry(lease)).isEqualTo(NOW.plusMillis(LEASE_MS));

        assertThat(db.inTransaction(() -> cut.renew(List.of(lease.claimer()), NOW.plusMillis(2 * LEASE_MS))))
                .containsExactly(lease.claimer());

        assertThat(expiry(lease)).isEqualTo(NOW.plusMillis(2 * LEASE_MS));
        claim(lease, 1, 10, NOW.plusMillis(LEASE_MS));
        assertThat(expiry(lease)).as("a claim renews its claimer's lease").isEqualTo(NOW.plusMillis(2 * LEASE_MS));
    }

    @Test
    void aClaimOfAClaimerWhoseLeaseRunsLongEnoughClaimsWithoutWritingItsLease() throws Exception {
        enqueue(mail("a", 4, NOW), mail("b", 4, NOW));
        Lease lease = start("host/server#1", NOW);

        ClaimStore.Claim claim = claimWithoutRenewal(lease, 1, 10, NOW.plusSeconds(1));

        assertThat(claim.leaseHeld()).isTrue();
        assertThat(claim.mails()).extracting(ClaimedMail::subject).containsExactly("a", "b");
        assertThat(expiry(lease)).as("the lease runs as it did: the claim wrote no MAIL_CLAIMER row")
                .isEqualTo(NOW.plusMillis(LEASE_MS));
        assertThat(status(claim.mails().get(0).id())).isEqualTo("SENDING");
    }

    @Test
    void aLeaseTakenBackIsNotRenewedAndItsClaimerClaimsNothingMore() {
        List<Long> ids = enqueue(mail("a", 4, NOW), mail("b", 4, NOW), mail("c", 4, NOW));
        Lease lapsed = start("host/server#1", NOW);
        claim(lapsed, 1, 1, NOW);

        ClaimStore.Claim other = claim(start("host/server#2", NOW.plusMillis(LEASE_MS + 1)), 1, 1,
                NOW.plusMillis(LEASE_MS + 1));
        assertThat(other.takenBack()).as("the lapsed claimer's lease ran out").isEqualTo(1);

        assertThat(db.inTransaction(() -> cut.renew(List.of(lapsed.claimer()), NOW.plusMillis(3 * LEASE_MS))))
                .as("its row is gone").isEmpty();
        ClaimStore.Claim late = claim(lapsed, 2, 10, NOW.plusMillis(LEASE_MS + 2));
        assertThat(late.leaseHeld()).isFalse();
        assertThat(late.mails()).isEmpty();
        ClaimStore.Claim unrenewed = claimWithoutRenewal(lapsed, 3, 10, NOW.plusMillis(LEASE_MS + 3));
        assertThat(unrenewed.leaseHeld()).as("a claim that does not renew still reads that the lease is gone").isFalse();
        assertThat(unrenewed.mails()).isEmpty();
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_QUEUE WHERE CLAIMER = ?", lapsed.claimer()))
                .as("no mail is tagged with a claimer that no longer exists").isZero();
        assertThat(ids).hasSize(3);
    }

    /**
     * Derby's readers lock the rows they read under READ COMMITTED, and the view MAIL_STATE reads a mail's queue row
     * and then its claimer. Taking back a dead claimer's mail locks in that order too, so a reader that holds the
     * queue row and then asks for the claimer (GET /api/mails/{id} while recovery runs) waits at worst, and neither
     * is chosen as a deadlock's victim. Before, recovery deleted the claimer first, and the two deadlocked.
     */
    @Test
    void takingBackADeadClaimersMailLocksItsQueueRowsBeforeItsClaimerAsReadersDo() throws Exception {
        long id = enqueue(mail("held by the dead", 4, NOW)).get(0);
        Lease dead = start("dead/server#1", NOW);
        claim(dead, 1, 1, NOW);
        Instant later = NOW.plusMillis(LEASE_MS + 1);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (var reader = db.connect()) {
            reader.setAutoCommit(false);
            reader.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ); // keeps its read locks
            assertThat(number(reader, "SELECT CLAIMER FROM MAIL_QUEUE WHERE MAIL_ID = ?", id)).isEqualTo(dead.claimer());
            Future<Integer> recovery = pool.submit(() -> db.inTransaction(
                    () -> cut.recover("host/server", later, InDoubtPolicy.RESEND)));
            long waitUntil = System.nanoTime() + 5_000_000_000L;
            while (!recovery.isDone() && !waiting() && System.nanoTime() < waitUntil) {
                Thread.sleep(20);
            }
            assertThat(number(reader, "SELECT COUNT(*) FROM MAIL_CLAIMER WHERE ID = ?", dead.claimer()))
                    .as("the reader reads the claimer without a deadlock").isBetween(0L, 1L);
            reader.commit();
            assertThat(recovery.get()).isEqualTo(1);
        } finally {
            pool.shutdownNow();
        }
        assertThat(status(id)).isEqualTo(MailStatus.QUEUED.name());
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_CLAIMER WHERE ID = ?", dead.claimer())).isZero();
    }

    /** @return true when a transaction waits for a lock (Derby's lock table; other databases: false) */
    boolean waiting() {
        return QueueDatabase.isDerby() && db.number("SELECT COUNT(*) FROM SYSCS_DIAG.LOCK_TABLE WHERE STATE = 'WAIT'") > 0;
    }

    static long number(Connection c, String sql, long param) throws Exception {
        try (var s = c.prepareStatement(sql)) {
            s.setLong(1, param);
            try (var r = s.executeQuery()) {
                r.next();
                return r.getLong(1);
            }
        }
    }

    Instant expiry(Lease lease) throws Exception {
        try (var c = db.connect(); var s = c.prepareStatement("SELECT EXPIRES_AT FROM MAIL_CLAIMER WHERE ID = ?")) {
            s.setLong(1, lease.claimer());
            try (var r = s.executeQuery()) {
                r.next();
                return SqlTime.get(r, 1);
            }
        }
    }

    @Test
    void mailNotYetDueIsNotClaimed() {
        enqueue(TestMails.due(mail("tomorrow", 9, NOW), NOW.plusSeconds(86_400)));
        Lease lease = start("host/server#1", NOW);

        assertThat(claim(lease, 1, 10, NOW).mails()).isEmpty();
        assertThat(claim(start("host/server#2", NOW.plusSeconds(86_400)), 1, 10, NOW.plusSeconds(86_400)).mails())
                .extracting(ClaimedMail::subject).containsExactly("tomorrow");
    }

    @Test
    void withinAPriorityTheMailDueLongestIsTakenFirstThoughAnotherWasEnqueuedEarlier() {
        enqueue(TestMails.due(mail("enqueued first, scheduled for 10 minutes ago", 4, NOW.minusSeconds(3_600)),
                        NOW.minusSeconds(600)),
                mail("enqueued 20 minutes ago, due at once", 4, NOW.minusSeconds(1_200)),
                TestMails.due(mail("enqueued before both, scheduled for tomorrow", 4, NOW.minusSeconds(7_200)),
                        NOW.plusSeconds(86_400)));

        assertThat(claim(start("host/server#1", NOW), 1, 1, NOW).mails()).extracting(ClaimedMail::subject)
                .containsExactly("enqueued 20 minutes ago, due at once");
        assertThat(claim(start("host/server#2", NOW), 1, 10, NOW).mails()).extracting(ClaimedMail::subject)
                .containsExactly("enqueued first, scheduled for 10 minutes ago");
        assertThat(cut.countClaimable(NOW, 10, false, TestMails.ACCOUNTS)).as("tomorrow's is not due").isZero();
    }

    @Test
    void onPostgresqlAClaimAndACountReadNoMailNotYetDueThoughItComesFirstInPriorityAndAge() {
        assumeTrue("postgresql".equals(QueueDatabase.KIND), "PostgreSQL's statistics of rows read");
        // 2,000 mails of the highest priority, enqueued an hour ago, scheduled for tomorrow: ahead of the due ones in
        // priority and in age, behind them in due time.
        db.update("INSERT INTO MAIL_MESSAGE (ID, MESSAGE_ID, PRIORITY, CREATED_AT, FROM_ADDRESS, TO_ADDRESSES, SUBJECT,"
                + " TEXT_BODY) SELECT 100000 + i, '<' || i || '@tomorrow.test>', 9, CAST(? AS TIMESTAMP) - INTERVAL '1 hour',"
                + " 'news@example.com', 'reader' || i || '@example.com', 'tomorrow ' || i, 'Hello'"
                + " FROM generate_series(1, 2000) AS g(i)", Timestamp.valueOf(LocalDateTime.ofInstant(NOW, ZoneOffset.UTC)));
        db.update("INSERT INTO MAIL_QUEUE (MAIL_ID, PRIORITY, CREATED_AT, DUE_AT, ATTEMPTS_LEFT) SELECT ID, PRIORITY,"
                + " CREATED_AT, CREATED_AT + INTERVAL '1 day', 3 FROM MAIL_MESSAGE WHERE ID > 100000");
        for (int i = 0; i < 10; i++) {
            enqueue(mail("due " + i, 4, NOW.minusSeconds(60)));
        }
        db.update("ANALYZE MAIL_QUEUE");
        Lease lease = start("host/server#1", NOW);

        long[] counted = db.inTransaction(() -> new long[]{
                cut.countClaimable(NOW, 100, false, TestMails.ACCOUNTS), rowsRead()});
        long[] claimed = db.inTransaction(() -> new long[]{
                cut.claim(lease, 1, "host/server", NOW, NOW.plusMillis(LEASE_MS), 100, InDoubtPolicy.RESEND,
                        TestMails.ACCOUNTS, false).mails().size(), rowsRead()});
        // Negative control: the pick of V13 to V18 (by priority and age, on their claim index, built here for this
        // transaction alone) over the same rows reads the 2,000.
        long[] before = db.inTransaction(() -> {
            try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement()) {
                s.execute("CREATE INDEX v13_claim_ix ON MAIL_QUEUE (PRIORITY DESC, CREATED_AT, MAIL_ID)"
                        + " WHERE CLAIMER IS NULL");
                s.execute(LeaseStrategy.OneStatement.KEY_PLANS);
                try (ResultSet r = s.executeQuery("SELECT MAIL_ID FROM MAIL_QUEUE WHERE CLAIMER IS NULL AND DUE_AT <= '"
                        + LocalDateTime.ofInstant(NOW, ZoneOffset.UTC) + "' ORDER BY PRIORITY DESC, CREATED_AT, MAIL_ID"
                        + " LIMIT 100 FOR UPDATE SKIP LOCKED")) {
                    while (r.next()) {
                        r.getLong(1);
                    }
                }
                long read = rowsRead();
                s.execute("DROP INDEX v13_claim_ix");
                return new long[]{read};
            }
        });

        assertThat(counted[0]).isEqualTo(10);
        assertThat(counted[1]).as("queue rows read to count 10 due mails behind 2,000 not due").isLessThan(100);
        assertThat(claimed[0]).isEqualTo(10);
        assertThat(claimed[1]).as("queue rows read to claim 10 due mails behind 2,000 not due").isLessThan(100);
        assertThat(before[0]).as("the pick in age order walks the mail not yet due").isGreaterThanOrEqualTo(2_000);
    }

    @Test
    void mailOfAccountsThatCannotSendNowOrThisServerDoesNotHaveStaysQueued() {
        enqueue(TestMails.account(mail("via backup", 4, NOW), "backup"),
                TestMails.account(mail("via default", 4, NOW), "mailqueue"));
        db.update("UPDATE MAIL_QUEUE SET SMTP_ACCOUNT = NULL WHERE MAIL_ID = (SELECT ID FROM MAIL_MESSAGE"
                + " WHERE SUBJECT = 'via default')"); // as before V5
        Lease lease = start("c#1", NOW);

        List<String> known = List.of("mailqueue", "backup");
        assertThat(claim(lease, 1, 10, NOW, InDoubtPolicy.RESEND, AccountFilter.of(known, Set.of("backup"), "mailqueue"), false)
                .mails()).extracting(ClaimedMail::subject).containsExactly("via default");
        releaseAll();
        assertThat(claim(lease, 2, 10, NOW, InDoubtPolicy.RESEND, AccountFilter.of(known, Set.of("mailqueue"), "mailqueue"), false)
                .mails()).extracting(ClaimedMail::subject).containsExactly("via backup");
        releaseAll();
        assertThat(claim(lease, 3, 10, NOW, InDoubtPolicy.RESEND, AccountFilter.of(List.of("mailqueue"), Set.of(), "mailqueue"),
                false).mails()).as("a server claims only the mail of accounts it has").extracting(ClaimedMail::subject)
                .containsExactly("via default");
    }

    /** A throttled account's backlog: the claim takes its cap of it and fills the batch with the others' mail. */
    @Test
    void aCappedAccountGivesAClaimNoMoreThanItsCapAndTheOthersFillTheBatch() {
        for (int i = 0; i < 6; i++) {
            enqueue(TestMails.account(mail("throttled " + i, 9, NOW.plusMillis(i)), "backup"));
        }
        enqueue(TestMails.account(mail("default, older", 4, NOW.minusSeconds(5)), "mailqueue"),
                TestMails.account(mail("default", 4, NOW.plusSeconds(5)), "mailqueue"));
        Lease lease = start("c#1", NOW.plusSeconds(10));
        List<String> known = List.of("mailqueue", "backup");

        ClaimStore.Claim first = claim(lease, 1, 4, NOW.plusSeconds(10), InDoubtPolicy.RESEND,
                AccountFilter.of(known, Set.of(), "mailqueue").capping(java.util.Map.of("backup", 2)), false);

        assertThat(first.mails()).as("in send order: priority, then age").extracting(ClaimedMail::subject)
                .containsExactly("throttled 0", "throttled 1", "default, older", "default");
        assertThat(claim(lease, 2, 10, NOW.plusSeconds(10), InDoubtPolicy.RESEND,
                AccountFilter.of(known, Set.of(), "mailqueue").capping(java.util.Map.of("backup", 3)), false).mails())
                .extracting(ClaimedMail::subject).containsExactly("throttled 2", "throttled 3", "throttled 4");
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_QUEUE WHERE CLAIMER IS NULL")).as("throttled 5").isEqualTo(1);
    }

    @Test
    void aPausedAccountsMailWaitsQueuedWithItsAttemptsUntilResumed() {
        DispatchPauseStore pauses = DispatchPauseStore.on(db.tables());
        enqueue(TestMails.account(mail("via backup", 4, NOW), "backup"),
                TestMails.account(mail("via default", 4, NOW), "mailqueue"),
                TestMails.account(mail("via default, no account", 4, NOW), "mailqueue"));
        db.update("UPDATE MAIL_QUEUE SET SMTP_ACCOUNT = NULL WHERE MAIL_ID = (SELECT ID FROM MAIL_MESSAGE"
                + " WHERE SUBJECT = 'via default, no account')"); // as before V5
        Lease lease = start("c#1", NOW);

        assertThat(db.inTransaction(() -> pauses.pause(Pauses.ACCOUNT + "backup", "operator", NOW))).isTrue();
        assertThat(db.inTransaction(() -> pauses.pause(Pauses.ACCOUNT + "backup", "another", NOW.plusSeconds(1))))
                .as("a repeat changes nothing").isFalse();
        assertThat(pauses.list()).containsExactly(
                new DispatchPauseStore.Pause(Pauses.ACCOUNT + "backup", NOW, "operator"));
        assertThat(db.inTransaction(() -> cut.countClaimable(NOW, 10, false, TestMails.ACCOUNTS))).isEqualTo(2);
        assertThat(claim(lease, 1, 10, NOW).mails()).extracting(ClaimedMail::subject)
                .containsExactlyInAnyOrder("via default", "via default, no account");
        releaseAll();

        assertThat(db.inTransaction(() -> pauses.pause(Pauses.ACCOUNT + "mailqueue", "operator", NOW))).isTrue();
        assertThat(claim(lease, 2, 10, NOW).mails()).as("the default account's pause holds mail without an account too")
                .isEmpty();
        assertThat(db.inTransaction(() -> cut.countClaimable(NOW, 10, false, TestMails.ACCOUNTS))).isZero();
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_QUEUE WHERE CLAIMER IS NULL AND ATTEMPTS_LEFT = 5"))
                .as("waiting, no attempt spent").isEqualTo(3);
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_ATTEMPT")).isZero();

        assertThat(db.inTransaction(() -> pauses.resume(Pauses.ACCOUNT + "backup"))).isTrue();
        assertThat(db.inTransaction(() -> pauses.resume(Pauses.ACCOUNT + "backup"))).isFalse();
        assertThat(claim(lease, 3, 10, NOW).mails()).extracting(ClaimedMail::subject).containsExactly("via backup");
        assertThat(db.inTransaction(() -> pauses.resume(Pauses.ACCOUNT + "mailqueue"))).isTrue();
        assertThat(claim(lease, 4, 10, NOW).mails()).extracting(ClaimedMail::subject)
                .containsExactlyInAnyOrder("via default", "via default, no account");
    }

    @Test
    void whileTheQueueIsPausedNothingIsClaimedAndClaimedMailIsLeftToFinish() {
        DispatchPauseStore pauses = DispatchPauseStore.on(db.tables());
        CampaignStore campaigns = CampaignStore.on(db.tables(), db.operatorStore());
        enqueue(mail("claimed before the pause", 9, NOW));
        ClaimedMail claimed = claim(start("c#1", NOW), 1, 1, NOW).mails().get(0);
        enqueue(TestMails.account(mail("via backup", 4, NOW), "backup"), mail("via default", 4, NOW),
                TestMails.inCampaign(mail("of a paused campaign", 4, NOW), "winter", null, List.of()));
        assertThat(db.inTransaction(() -> campaigns.pause("winter", "operator", NOW))).isTrue();
        Lease second = start("c#2", NOW);

        assertThat(db.inTransaction(() -> pauses.pause(Pauses.QUEUE, "operator", NOW))).isTrue();
        assertThat(claim(second, 1, 10, NOW).mails()).isEmpty();
        assertThat(db.inTransaction(() -> cut.countClaimable(NOW, 10, true, TestMails.ACCOUNTS))).isZero();
        assertThat(status(claimed.id())).isEqualTo("SENDING");
        assertThat(db.inTransaction(() -> cut.countClaimable(NOW.plusMillis(LEASE_MS + 1), 10, true, TestMails.ACCOUNTS)))
                .as("a lease that ran out is still taken back").isEqualTo(1);

        assertThat(db.inTransaction(() -> pauses.resume(Pauses.QUEUE))).isTrue();
        assertThat(claim(second, 2, 10, NOW).mails()).as("the campaign's own pause still holds")
                .extracting(ClaimedMail::subject).containsExactlyInAnyOrder("via backup", "via default");
        assertThat(db.inTransaction(() -> campaigns.resume("winter"))).isTrue();
        assertThat(claim(second, 3, 10, NOW).mails()).extracting(ClaimedMail::subject).containsExactly("of a paused campaign");
    }

    @Test
    void claimersRacingForTheSameMailsNeverShareOne() throws Exception {
        List<NewMail> mails = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            mails.add(mail("m" + i, i % 10, NOW.minusSeconds(i)));
        }
        enqueue(mails.toArray(NewMail[]::new));
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<List<Long>>> claimers = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                Lease lease = start("host/server#" + t, NOW);
                claimers.add(pool.submit(() -> {
                    List<Long> mine = new ArrayList<>();
                    for (int round = 1; round <= 200; round++) {
                        List<ClaimedMail> got = claim(lease, round, 7, NOW, InDoubtPolicy.RESEND, TestMails.ACCOUNTS, false)
                                .mails();
                        got.forEach(m -> mine.add(m.id()));
                        if (got.isEmpty() && db.number("SELECT COUNT(*) FROM MAIL_QUEUE WHERE CLAIMER IS NULL") == 0) {
                            break;
                        }
                    }
                    return mine;
                }));
            }
            List<Long> all = new ArrayList<>();
            for (Future<List<Long>> claimer : claimers) {
                all.addAll(claimer.get());
            }
            assertThat(all).as("every mail claimed exactly once").hasSize(200).doesNotHaveDuplicates();
            assertThat(db.number("SELECT COUNT(DISTINCT CLAIMER) FROM MAIL_QUEUE")).isGreaterThan(1);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void theMailOfADeadClaimerComesBackItsFirstUnrecordedOneInDoubtTheOthersAsTheyWere() {
        List<Long> ids = enqueue(mail("first sent", 9, NOW), mail("second, in flight", 8, NOW), mail("third", 7, NOW),
                mail("fourth, of the next claim", 6, NOW));
        Lease dead = start("dead/server#1", NOW);
        ClaimStore.Claim first = claim(dead, 1, 3, NOW);
        ClaimStore.Claim next = claim(dead, 2, 1, NOW); // a claim of the same claimer once the first was handed out
        assertThat(first.mails()).hasSize(3);
        assertThat(next.mails()).extracting(ClaimedMail::subject).containsExactly("fourth, of the next claim");
        db.inTransaction(() -> { // the first mail's outcome was recorded: it is no longer held
            outcomes.apply(List.of(OutcomeStoreTest.sent(first.mails().get(0), dead, NOW.plusSeconds(1))),
                    OutcomeStoreTest.RETRY, InDoubtPolicy.RESEND, false);
            return null;
        });

        ClaimStore.Claim again = claim(start("live/server#2", NOW.plusMillis(LEASE_MS + 1)), 1, 10,
                NOW.plusMillis(LEASE_MS + 1));

        assertThat(again.takenBack()).isEqualTo(3);
        assertThat(again.mails()).extracting(ClaimedMail::subject)
                .containsExactly("second, in flight", "third", "fourth, of the next claim");
        assertThat(again.mails().get(0).attemptsRemaining()).as("the one that may have been sent spends an attempt")
                .isEqualTo(4);
        assertThat(again.mails().subList(1, 3)).allSatisfy(m -> assertThat(m.attemptsRemaining()).isEqualTo(5));
        assertThat(db.text("SELECT OUTCOME FROM MAIL_ATTEMPT WHERE MAIL_ID = ?", ids.get(1))).isEqualTo("IN_DOUBT");
        assertThat(db.text("SELECT LEASE_OWNER FROM MAIL_ATTEMPT WHERE MAIL_ID = ?", ids.get(1))).isEqualTo("dead/server#1");
        assertThat(db.text("SELECT EVENT_TYPE FROM MAIL_ATTEMPT WHERE MAIL_ID = ?", ids.get(1))).isEqualTo("DEFERRED");
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_ATTEMPT WHERE MAIL_ID IN (?, ?)", ids.get(2), ids.get(3)))
                .as("never begun: nothing logged").isZero();
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_CLAIMER WHERE ID = ?", dead.claimer())).as("its lease is gone")
                .isZero();
    }

    @Test
    void underHoldTheMailInDoubtIsHeldForReview() {
        long id = enqueue(mail("dead while sending", 4, NOW)).get(0);
        claim(start("dead/server#1", NOW), 1, 1, NOW);

        assertThat(claim(start("live/server#2", NOW), 1, 1, NOW.plusMillis(LEASE_MS + 1), InDoubtPolicy.HOLD,
                TestMails.ACCOUNTS, true).mails()).isEmpty();
        assertThat(status(id)).isEqualTo("HELD");
        assertThat(db.text("SELECT LAST_ERROR FROM MAIL_STATE WHERE MAIL_ID = ?", id)).contains("in doubt", "held for review");
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_QUEUE WHERE MAIL_ID = ?", id)).as("no longer live").isZero();
    }

    @Test
    void aRenewedLeaseIsNotTakenBack() {
        List<Long> ids = enqueue(mail("a", 4, NOW), mail("b", 4, NOW));
        Lease renewed = start("host/server#1", NOW);
        Lease lapsed = start("host/server#2", NOW);
        long kept = claim(renewed, 1, 1, NOW).mails().get(0).id();
        claim(lapsed, 1, 1, NOW);

        db.inTransaction(() -> cut.renew(List.of(renewed.claimer()), NOW.plusMillis(2 * LEASE_MS)));

        ClaimStore.Claim later = claim(start("host/server#3", NOW.plusMillis(LEASE_MS + 1)), 1, 10,
                NOW.plusMillis(LEASE_MS + 1));
        assertThat(later.takenBack()).as("the other claimer's lease ran out").isEqualTo(1);
        assertThat(later.mails()).extracting(ClaimedMail::id).doesNotContain(kept).hasSize(1);
        assertThat(db.number("SELECT CLAIMER FROM MAIL_QUEUE WHERE MAIL_ID = ?", kept)).isEqualTo(renewed.claimer());
        assertThat(ids).hasSize(2);
    }

    @Test
    void claimReadsBodiesPartsAndSettledRecipientsButNotALargeBodyOrFileContent() {
        String large = "x".repeat(ClaimStore.CLAIM_BODY_CHARS + 1);
        byte[] pdf = "%PDF-1.4".getBytes(StandardCharsets.US_ASCII);
        long small = enqueue(TestMails.content(mail("small", 4, NOW), "text", "<p>html</p>",
                List.of(new NewMail.Attachment("a.pdf", "application/pdf", pdf)),
                List.of(new NewMail.Header("X-Campaign", "spring")))).get(0);
        long big = enqueue(TestMails.content(mail("big", 4, NOW.plusSeconds(1)), large, null, List.of(), List.of())).get(0);
        db.update("UPDATE MAIL_QUEUE SET SETTLED = 1 WHERE MAIL_ID = ?", small);
        db.update("INSERT INTO MAIL_RECIPIENT (MAIL_ID, ADDRESS, ATTEMPT_ID, STATUS, UPDATED_AT)"
                + " VALUES (?, 'Gone@Example.com', 1, 'DEFERRED', ?)", small, Timestamp.from(NOW));
        db.update("INSERT INTO MAIL_RECIPIENT (MAIL_ID, ADDRESS, ATTEMPT_ID, STATUS, UPDATED_AT)"
                + " VALUES (?, 'Gone@Example.com', 2, 'REFUSED', ?)", small, Timestamp.from(NOW));

        List<ClaimedMail> claimed = claim(start("host/server#1", NOW), 1, 10, NOW.plusSeconds(2)).mails();

        ClaimedMail first = claimed.get(0);
        assertThat(first.id()).isEqualTo(small);
        assertThat(first.body()).isEqualTo(new ClaimedMail.Body("text", "<p>html</p>"));
        assertThat(first.headers()).containsExactly(new NewMail.Header("X-Campaign", "spring"));
        assertThat(first.attachments()).containsExactly(new ClaimedMail.AttachmentInfo(small, 0, "a.pdf", "application/pdf", pdf.length));
        assertThat(first.settled()).as("the latest result of each recipient").containsEntry("gone@example.com", RecipientStatus.REFUSED);
        assertThat(cut.attachmentContent(small, 0)).isEqualTo(pdf);
        ClaimedMail second = claimed.get(1);
        assertThat(second.body()).as("too large to read with the claim").isNull();
        assertThat(cut.body(big).text()).isEqualTo(large);
    }

    @Test
    void countClaimableCountsDueMailAndMailOfLeasesThatRanOut() {
        enqueue(mail("a", 4, NOW), mail("b", 4, NOW), TestMails.due(mail("later", 4, NOW), NOW.plusSeconds(3600)));
        assertThat(db.inTransaction(() -> cut.countClaimable(NOW, 10, true, TestMails.ACCOUNTS))).isEqualTo(2);
        claim(start("dead/server#1", NOW), 1, 2, NOW);
        assertThat(db.inTransaction(() -> cut.countClaimable(NOW, 10, true, TestMails.ACCOUNTS))).isZero();
        assertThat(db.inTransaction(() -> cut.countClaimable(NOW.plusMillis(LEASE_MS + 1), 10, true, TestMails.ACCOUNTS))).isEqualTo(2);
        assertThat(db.inTransaction(() -> cut.countClaimable(NOW.plusMillis(LEASE_MS + 1), 10, false, TestMails.ACCOUNTS)))
                .as("a wake-up counts queued mail only").isZero();
    }

    /**
     * The claim's cost follows what it takes, not the backlog, also while PostgreSQL's statistics say the queue is
     * empty: the state right after a burst is enqueued into an idle queue, until autovacuum analyzes the table. Rows
     * read are the queue table's heap rows read in the claim's transaction ({@code pg_stat_xact_user_tables}).
     */
    @Test
    void onPostgresqlAClaimAndACountReadAboutWhatTheyTakeEvenWhileTheStatisticsSayTheQueueIsEmpty() {
        assumeTrue("postgresql".equals(QueueDatabase.KIND), "PostgreSQL's planner");
        // Empty and analyzed so: no column statistics and no pages, as on a new schema or after an idle night
        db.update("TRUNCATE MAIL_MESSAGE CASCADE");
        db.update("ANALYZE MAIL_MESSAGE");
        db.update("ANALYZE MAIL_QUEUE");
        db.update("INSERT INTO MAIL_MESSAGE (ID, MESSAGE_ID, PRIORITY, CREATED_AT, FROM_ADDRESS, TO_ADDRESSES, SUBJECT,"
                + " TEXT_BODY) SELECT i, '<' || i || '@burst.test>', 4, CAST(? AS TIMESTAMP) - i * INTERVAL '1 second', 'news@example.com',"
                + " 'reader' || i || '@example.com', 'burst ' || i, 'Hello' FROM generate_series(1, 2000) AS g(i)",
                Timestamp.valueOf(LocalDateTime.ofInstant(NOW, ZoneOffset.UTC)));
        db.update("INSERT INTO MAIL_QUEUE (MAIL_ID, PRIORITY, CREATED_AT, DUE_AT, ATTEMPTS_LEFT)"
                + " SELECT ID, PRIORITY, CREATED_AT, CREATED_AT, 3 FROM MAIL_MESSAGE");
        Lease lease = start("host/server#1", NOW);

        long[] counted = db.inTransaction(() -> new long[]{
                cut.countClaimable(NOW, 10, false, TestMails.ACCOUNTS), rowsRead()});
        long[] claimed = db.inTransaction(() -> new long[]{
                cut.claim(lease, 1, "host/server", NOW, NOW.plusMillis(LEASE_MS), 10, InDoubtPolicy.RESEND,
                        TestMails.ACCOUNTS, false).mails().size(), rowsRead()});

        assertThat(counted[0]).isEqualTo(10);
        assertThat(counted[1]).as("queue rows read to count 10 of 2,000 due mails").isLessThan(100);
        assertThat(claimed[0]).isEqualTo(10);
        assertThat(claimed[1]).as("queue rows read to claim 10 of 2,000 due mails").isLessThan(100);
        assertThat(db.text("SELECT MIN(SUBJECT) FROM MAIL_MESSAGE m JOIN MAIL_QUEUE q ON q.MAIL_ID = m.ID"
                + " WHERE q.CLAIMER IS NOT NULL")).as("the oldest were taken").isEqualTo("burst 1991");
    }

    /** @return heap rows of MAIL_QUEUE read so far in this thread's transaction, by scans and index fetches */
    private static long rowsRead() throws SQLException {
        try (Connection c = db.dataSource().getConnection();
             Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT COALESCE(seq_tup_read, 0) + COALESCE(idx_tup_fetch, 0)"
                     + " FROM pg_stat_xact_user_tables WHERE relid = 'mail_queue'::regclass")) {
            r.next();
            return r.getLong(1);
        }
    }

    @Test
    void aClaimThatDoesNotRecoverLeavesExpiredLeasesToALaterOne() {
        enqueue(mail("a", 4, NOW));
        claim(start("dead/server#1", NOW), 1, 1, NOW);
        Instant later = NOW.plusMillis(LEASE_MS + 1);
        Lease live = start("live/server#2", later);
        ClaimStore.Claim skipping = claim(live, 1, 1, later, InDoubtPolicy.RESEND, TestMails.ACCOUNTS, false);
        assertThat(skipping.mails()).isEmpty();
        assertThat(skipping.takenBack()).isZero();
        ClaimStore.Claim recovering = claim(live, 2, 1, later, InDoubtPolicy.RESEND, TestMails.ACCOUNTS, true);
        assertThat(recovering.takenBack()).isEqualTo(1);
        assertThat(recovering.mails()).extracting(ClaimedMail::subject).containsExactly("a");
        assertThat(status(recovering.mails().get(0).id())).isEqualTo(MailStatus.SENDING.name());
    }
}
