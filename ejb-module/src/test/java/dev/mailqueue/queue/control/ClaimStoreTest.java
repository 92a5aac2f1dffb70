package dev.mailqueue.queue.control;

import dev.mailqueue.mail.entity.RecipientStatus;
import dev.mailqueue.testsupport.QueueDatabase;
import dev.mailqueue.testsupport.TestMails;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static dev.mailqueue.testsupport.TestMails.mail;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The claim on the real schema and database: which rows it takes and in which order, the lease it
 * writes, that it leaves alone what is not due or cannot be sent now, that two claimers never share a
 * row, that it takes back the rows of dead claimers (in doubt when their send had begun), and that a
 * live claimer's renewed lease is never taken back.
 */
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

    List<Long> enqueue(dev.mailqueue.queue.control.NewMail... mails) {
        return db.inTransaction(() -> enqueuer.enqueue(TestMails.groups(mails))).stream().map(g -> g.get(0).id()).toList();
    }

    ClaimStore.Claim claim(String owner, int limit, Instant now) {
        return claim(owner, limit, now, InDoubtPolicy.RESEND, TestMails.ACCOUNTS);
    }

    ClaimStore.Claim claim(String owner, int limit, Instant now, InDoubtPolicy inDoubt, AccountFilter accounts) {
        return db.inTransaction(() -> cut.claim(owner, "host/server", now, now.plusMillis(LEASE_MS), limit, inDoubt, accounts));
    }

    @Test
    void claimTakesTheBestDueMailsFirstUpToTheLimitAndLeasesThem() {
        List<Long> ids = enqueue(
                mail("old normal, first id", 4, NOW.minusSeconds(180)),
                mail("urgent, newest", 9, NOW.minusSeconds(60)),
                mail("oldest normal", 4, NOW.minusSeconds(300)),
                mail("old normal, second id", 4, NOW.minusSeconds(180)),
                mail("bulk, oldest of all", 0, NOW.minusSeconds(600)));

        ClaimStore.Claim claim = claim("host/server#1", 3, NOW);

        assertThat(claim.mails()).extracting(ClaimedMail::subject)
                .containsExactly("urgent, newest", "oldest normal", "old normal, first id");
        for (ClaimedMail mail : claim.mails()) {
            assertThat(db.text("SELECT STATUS FROM MAIL_MESSAGE WHERE ID = ?", mail.id())).isEqualTo("SENDING");
            assertThat(db.text("SELECT LEASE_OWNER FROM MAIL_MESSAGE WHERE ID = ?", mail.id())).isEqualTo("host/server#1");
        }
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_MESSAGE WHERE STATUS = 'QUEUED'")).isEqualTo(2);
        assertThat(ids).hasSize(5);
        assertThat(claim("host/server#2", 10, NOW).mails()).extracting(ClaimedMail::subject)
                .containsExactly("old normal, second id", "bulk, oldest of all");
    }

    @Test
    void theLeaseRunsOneLeaseTimeAndTheClaimTimeIsKept() throws Exception {
        long id = enqueue(mail("leased", 4, NOW)).get(0);
        claim("host/server#1", 1, NOW);
        try (var c = db.connect(); var s = c.prepareStatement("SELECT LEASE_EXPIRES_AT, CLAIMED_AT FROM MAIL_MESSAGE WHERE ID = ?")) {
            s.setLong(1, id);
            try (var r = s.executeQuery()) {
                r.next();
                assertThat(SqlTime.get(r, 1)).isEqualTo(NOW.plusMillis(LEASE_MS));
                assertThat(SqlTime.get(r, 2)).isEqualTo(NOW);
            }
        }
    }

    @Test
    void mailNotYetDueOrWithoutAttemptsIsNotClaimed() {
        enqueue(TestMails.due(mail("tomorrow", 9, NOW), NOW.plusSeconds(86_400)));
        long spent = enqueue(mail("no attempts left", 9, NOW)).get(0);
        db.update("UPDATE MAIL_MESSAGE SET ATTEMPTS_REMAINING = 0 WHERE ID = ?", spent);

        assertThat(claim("host/server#1", 10, NOW).mails()).isEmpty();
        assertThat(claim("host/server#1", 10, NOW.plusSeconds(86_400)).mails()).extracting(ClaimedMail::subject)
                .containsExactly("tomorrow");
    }

    @Test
    void mailOfAccountsThatCannotSendNowOrThisServerDoesNotHaveStaysQueued() {
        enqueue(TestMails.account(mail("via backup", 4, NOW), "backup"),
                TestMails.account(mail("via default", 4, NOW), "mailqueue"));
        db.update("UPDATE MAIL_MESSAGE SET SMTP_ACCOUNT = NULL WHERE SUBJECT = 'via default'"); // as before V5

        List<String> known = List.of("mailqueue", "backup");
        assertThat(claim("c#1", 10, NOW, InDoubtPolicy.RESEND, AccountFilter.of(known, Set.of("backup"), "mailqueue"))
                .mails()).extracting(ClaimedMail::subject).containsExactly("via default");
        db.update("UPDATE MAIL_MESSAGE SET STATUS = 'QUEUED', LEASE_OWNER = NULL");
        assertThat(claim("c#1", 10, NOW, InDoubtPolicy.RESEND, AccountFilter.of(known, Set.of("mailqueue"), "mailqueue"))
                .mails()).extracting(ClaimedMail::subject).containsExactly("via backup");
        db.update("UPDATE MAIL_MESSAGE SET STATUS = 'QUEUED', LEASE_OWNER = NULL");
        assertThat(claim("c#1", 10, NOW, InDoubtPolicy.RESEND, AccountFilter.of(List.of("mailqueue"), Set.of(), "mailqueue"))
                .mails()).as("a server claims only the mail of accounts it has").extracting(ClaimedMail::subject)
                .containsExactly("via default");
    }

    @Test
    void aPausedAccountsMailWaitsQueuedWithItsAttemptsUntilResumed() {
        DispatchPauseStore pauses = DispatchPauseStore.on(db.tables());
        enqueue(TestMails.account(mail("via backup", 4, NOW), "backup"),
                TestMails.account(mail("via default", 4, NOW), "mailqueue"),
                TestMails.account(mail("via default, no account", 4, NOW), "mailqueue"));
        db.update("UPDATE MAIL_MESSAGE SET SMTP_ACCOUNT = NULL WHERE SUBJECT = 'via default, no account'"); // as before V5

        assertThat(db.inTransaction(() -> pauses.pause(DispatchPauseStore.ACCOUNT + "backup", "operator", NOW))).isTrue();
        assertThat(db.inTransaction(() -> pauses.pause(DispatchPauseStore.ACCOUNT + "backup", "another", NOW.plusSeconds(1))))
                .as("a repeat changes nothing").isFalse();
        assertThat(pauses.list()).containsExactly(
                new DispatchPauseStore.Pause(DispatchPauseStore.ACCOUNT + "backup", NOW, "operator"));
        assertThat(db.inTransaction(() -> cut.countClaimable(NOW, 10, false, TestMails.ACCOUNTS))).isEqualTo(2);
        assertThat(claim("c#1", 10, NOW).mails()).extracting(ClaimedMail::subject)
                .containsExactlyInAnyOrder("via default", "via default, no account");
        db.update("UPDATE MAIL_MESSAGE SET STATUS = 'QUEUED', LEASE_OWNER = NULL");

        assertThat(db.inTransaction(() -> pauses.pause(DispatchPauseStore.ACCOUNT + "mailqueue", "operator", NOW))).isTrue();
        assertThat(claim("c#1", 10, NOW).mails()).as("the default account's pause holds mail without an account too")
                .isEmpty();
        assertThat(db.inTransaction(() -> cut.countClaimable(NOW, 10, false, TestMails.ACCOUNTS))).isZero();
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_MESSAGE WHERE STATUS = 'QUEUED' AND ATTEMPTS_REMAINING = 5"))
                .as("waiting, no attempt spent").isEqualTo(3);
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_ATTEMPT")).isZero();

        assertThat(db.inTransaction(() -> pauses.resume(DispatchPauseStore.ACCOUNT + "backup"))).isTrue();
        assertThat(db.inTransaction(() -> pauses.resume(DispatchPauseStore.ACCOUNT + "backup"))).isFalse();
        assertThat(claim("c#1", 10, NOW).mails()).extracting(ClaimedMail::subject).containsExactly("via backup");
        assertThat(db.inTransaction(() -> pauses.resume(DispatchPauseStore.ACCOUNT + "mailqueue"))).isTrue();
        assertThat(claim("c#1", 10, NOW).mails()).extracting(ClaimedMail::subject)
                .containsExactlyInAnyOrder("via default", "via default, no account");
    }

    @Test
    void whileTheQueueIsPausedNothingIsClaimedAndClaimedMailIsLeftToFinish() {
        DispatchPauseStore pauses = DispatchPauseStore.on(db.tables());
        CampaignStore campaigns = CampaignStore.on(db.tables(), db.operatorStore());
        enqueue(mail("claimed before the pause", 9, NOW));
        ClaimedMail claimed = claim("c#1", 1, NOW).mails().get(0);
        enqueue(TestMails.account(mail("via backup", 4, NOW), "backup"), mail("via default", 4, NOW),
                TestMails.inCampaign(mail("of a paused campaign", 4, NOW), "winter", null, List.of()));
        assertThat(db.inTransaction(() -> campaigns.pause("winter", "operator", NOW))).isTrue();

        assertThat(db.inTransaction(() -> pauses.pause(DispatchPauseStore.QUEUE, "operator", NOW))).isTrue();
        assertThat(claim("c#2", 10, NOW).mails()).isEmpty();
        assertThat(db.inTransaction(() -> cut.countClaimable(NOW, 10, true, TestMails.ACCOUNTS))).isZero();
        assertThat(db.text("SELECT STATUS FROM MAIL_MESSAGE WHERE ID = ?", claimed.id())).isEqualTo("SENDING");
        assertThat(db.inTransaction(() -> cut.countClaimable(NOW.plusMillis(LEASE_MS + 1), 10, true, TestMails.ACCOUNTS)))
                .as("a lease that ran out is still taken back").isEqualTo(1);

        assertThat(db.inTransaction(() -> pauses.resume(DispatchPauseStore.QUEUE))).isTrue();
        assertThat(claim("c#2", 10, NOW).mails()).as("the campaign's own pause still holds")
                .extracting(ClaimedMail::subject).containsExactlyInAnyOrder("via backup", "via default");
        assertThat(db.inTransaction(() -> campaigns.resume("winter"))).isTrue();
        assertThat(claim("c#3", 10, NOW).mails()).extracting(ClaimedMail::subject).containsExactly("of a paused campaign");
    }

    @Test
    void claimersRacingForTheSameRowsNeverShareOne() throws Exception {
        List<dev.mailqueue.queue.control.NewMail> mails = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            mails.add(mail("m" + i, i % 10, NOW.minusSeconds(i)));
        }
        enqueue(mails.toArray(dev.mailqueue.queue.control.NewMail[]::new));
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<List<Long>>> claimers = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                String owner = "host/server#" + t;
                claimers.add(pool.submit(() -> {
                    List<Long> mine = new ArrayList<>();
                    for (int round = 0; round < 200; round++) {
                        List<ClaimedMail> got = claim(owner, 7, NOW).mails();
                        got.forEach(m -> mine.add(m.id()));
                        if (got.isEmpty() && db.number("SELECT COUNT(*) FROM MAIL_MESSAGE WHERE STATUS = 'QUEUED'") == 0) {
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
            assertThat(all).as("every row claimed exactly once").hasSize(200).doesNotHaveDuplicates();
            assertThat(db.number("SELECT COUNT(DISTINCT LEASE_OWNER) FROM MAIL_MESSAGE")).isGreaterThan(1);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aLeaseThatRanOutBeforeSendingBeganComesBackAsItWas() {
        long id = enqueue(mail("dead claimer's", 4, NOW)).get(0);
        claim("dead/server#1", 1, NOW);

        ClaimStore.Claim again = claim("live/server#2", 1, NOW.plusMillis(LEASE_MS + 1));

        assertThat(again.takenBack()).isEqualTo(1);
        assertThat(again.mails()).singleElement().satisfies(m -> {
            assertThat(m.id()).isEqualTo(id);
            assertThat(m.attemptsRemaining()).as("nothing was sent: no attempt spent").isEqualTo(5);
        });
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_ATTEMPT")).as("no attempt logged").isZero();
    }

    @Test
    void aLeaseThatRanOutAfterSendingBeganIsInDoubtAndSentAgain() {
        long id = enqueue(mail("dead while sending", 4, NOW)).get(0);
        claim("dead/server#1", 1, NOW);
        db.inTransaction(() -> {
            outcomes.apply(List.of(new Change.SendStarted(id, "dead/server#1", NOW.plusSeconds(1))), retry(), InDoubtPolicy.RESEND, false);
            return null;
        });

        ClaimStore.Claim again = claim("live/server#2", 1, NOW.plusMillis(LEASE_MS + 1));

        assertThat(again.mails()).singleElement().satisfies(m -> assertThat(m.attemptsRemaining()).isEqualTo(4));
        assertThat(db.text("SELECT OUTCOME FROM MAIL_ATTEMPT WHERE MAIL_ID = ?", id)).isEqualTo("IN_DOUBT");
        assertThat(db.text("SELECT LEASE_OWNER FROM MAIL_ATTEMPT WHERE MAIL_ID = ?", id)).isEqualTo("dead/server#1");
    }

    @Test
    void underHoldAnInDoubtMailIsHeldForReview() {
        long id = enqueue(mail("dead while sending", 4, NOW)).get(0);
        claim("dead/server#1", 1, NOW);
        db.update("UPDATE MAIL_MESSAGE SET SEND_STARTED_AT = LEASE_EXPIRES_AT WHERE ID = ?", id);

        assertThat(claim("live/server#2", 1, NOW.plusMillis(LEASE_MS + 1), InDoubtPolicy.HOLD, TestMails.ACCOUNTS)
                .mails()).isEmpty();
        assertThat(db.text("SELECT STATUS FROM MAIL_MESSAGE WHERE ID = ?", id)).isEqualTo("HELD");
        assertThat(db.text("SELECT LAST_ERROR FROM MAIL_MESSAGE WHERE ID = ?", id)).contains("in doubt", "held for review");
    }

    @Test
    void aRenewedLeaseIsNotTakenBackAndRenewalTouchesOnlyTheClaimersOwnRows() {
        List<Long> ids = enqueue(mail("a", 4, NOW), mail("b", 4, NOW));
        claim("host/server#1", 1, NOW);
        claim("host/server#2", 1, NOW);
        long first = db.number("SELECT ID FROM MAIL_MESSAGE WHERE LEASE_OWNER = 'host/server#1'");

        db.inTransaction(() -> {
            db.outcomeStore().apply(List.of(new Change.Renewed("host/server#1", ids, NOW.plusMillis(2 * LEASE_MS))),
                    OutcomeStoreTest.RETRY, InDoubtPolicy.RESEND, false);
            return null;
        });

        ClaimStore.Claim later = claim("host/server#3", 10, NOW.plusMillis(LEASE_MS + 1));
        assertThat(later.takenBack()).as("the other claimer's lease ran out").isEqualTo(1);
        assertThat(later.mails()).extracting(ClaimedMail::id).doesNotContain(first);
        assertThat(db.text("SELECT LEASE_OWNER FROM MAIL_MESSAGE WHERE ID = ?", first)).isEqualTo("host/server#1");
    }

    @Test
    void claimReadsBodiesPartsAndSettledRecipientsButNotALargeBodyOrFileContent() {
        String large = "x".repeat(ClaimStore.CLAIM_BODY_CHARS + 1);
        byte[] pdf = "%PDF-1.4".getBytes(StandardCharsets.US_ASCII);
        long small = enqueue(TestMails.content(mail("small", 4, NOW), "text", "<p>html</p>",
                List.of(new NewMail.Attachment("a.pdf", "application/pdf", pdf)),
                List.of(new NewMail.Header("X-Campaign", "spring")))).get(0);
        long big = enqueue(TestMails.content(mail("big", 4, NOW.plusSeconds(1)), large, null, List.of(), List.of())).get(0);
        db.update("UPDATE MAIL_MESSAGE SET LAST_ATTEMPT_AT = CREATED_AT WHERE ID = ?", small);
        db.update("INSERT INTO MAIL_RECIPIENT (MAIL_ID, ADDRESS, STATUS, UPDATED_AT) VALUES (?, 'Gone@Example.com', 'REFUSED', CREATED_AT)"
                .replace("CREATED_AT)", "?)"), small, java.sql.Timestamp.from(NOW));

        List<ClaimedMail> claimed = claim("host/server#1", 10, NOW.plusSeconds(2)).mails();

        ClaimedMail first = claimed.get(0);
        assertThat(first.id()).isEqualTo(small);
        assertThat(first.body()).isEqualTo(new ClaimedMail.Body("text", "<p>html</p>"));
        assertThat(first.headers()).containsExactly(new NewMail.Header("X-Campaign", "spring"));
        assertThat(first.attachments()).containsExactly(new ClaimedMail.AttachmentInfo(small, 0, "a.pdf", "application/pdf", pdf.length));
        assertThat(first.settled()).containsEntry("gone@example.com", RecipientStatus.REFUSED);
        assertThat(cut.attachmentContent(small, 0)).isEqualTo(pdf);
        ClaimedMail second = claimed.get(1);
        assertThat(second.body()).as("too large to read with the claim").isNull();
        assertThat(cut.body(big).text()).isEqualTo(large);
    }

    @Test
    void countClaimableCountsDueRowsAndRunOutLeases() {
        enqueue(mail("a", 4, NOW), mail("b", 4, NOW), TestMails.due(mail("later", 4, NOW), NOW.plusSeconds(3600)));
        assertThat(db.inTransaction(() -> cut.countClaimable(NOW, 10, true, TestMails.ACCOUNTS))).isEqualTo(2);
        claim("dead/server#1", 2, NOW);
        assertThat(db.inTransaction(() -> cut.countClaimable(NOW, 10, true, TestMails.ACCOUNTS))).isZero();
        assertThat(db.inTransaction(() -> cut.countClaimable(NOW.plusMillis(LEASE_MS + 1), 10, true, TestMails.ACCOUNTS))).isEqualTo(2);
        assertThat(db.inTransaction(() -> cut.countClaimable(NOW.plusMillis(LEASE_MS + 1), 10, false, TestMails.ACCOUNTS)))
                .as("a wake-up counts queued mail only").isZero();
    }

    @Test
    void aClaimThatDoesNotSweepLeavesExpiredLeasesToALaterOne() {
        enqueue(mail("a", 4, NOW));
        claim("dead/server#1", 1, NOW);
        Instant later = NOW.plusMillis(LEASE_MS + 1);
        ClaimStore.Claim skipping = db.inTransaction(() -> cut.claim("live/server#2", "live/server", later,
                later.plusMillis(LEASE_MS), 1, InDoubtPolicy.RESEND, TestMails.ACCOUNTS, false));
        assertThat(skipping.mails()).isEmpty();
        assertThat(skipping.takenBack()).isZero();
        ClaimStore.Claim sweeping = db.inTransaction(() -> cut.claim("live/server#2", "live/server", later,
                later.plusMillis(LEASE_MS), 1, InDoubtPolicy.RESEND, TestMails.ACCOUNTS, true));
        assertThat(sweeping.takenBack()).isEqualTo(1);
        assertThat(sweeping.mails()).extracting(ClaimedMail::subject).containsExactly("a");
    }

    static RetryPolicy retry() {
        return new RetryPolicy(300_000, 4_000_000, 0.25, 5);
    }

    static Set<Long> set(List<Long> ids) {
        return Collections.unmodifiableSet(new HashSet<>(ids));
    }
}
