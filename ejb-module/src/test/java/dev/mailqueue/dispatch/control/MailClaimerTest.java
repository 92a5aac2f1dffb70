package dev.mailqueue.dispatch.control;

import dev.mailqueue.api.MailStatus;
import dev.mailqueue.mail.entity.AttemptOutcome;
import dev.mailqueue.mail.entity.MailAttempt;
import dev.mailqueue.mail.control.MailParts;
import dev.mailqueue.mail.entity.MailAttachment;
import dev.mailqueue.mail.entity.MailHeader;
import dev.mailqueue.mail.entity.MailMessage;
import dev.mailqueue.mail.entity.RecipientStatus;
import jakarta.persistence.EntityManager;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The claim on the real schema, EclipseLink and Derby: which rows it takes, in which order, how it
 * leases them, that it takes rows back from dead claimers, that the SQL it sends really locks, and
 * that two claimers never share a row.
 */
class MailClaimerTest {

    static final LocalDateTime NOW = LocalDateTime.of(2030, 3, 14, 9, 26, 53);
    static final long LEASE_MS = 60_000;

    @RegisterExtension
    static final QueueDatabase db = QueueDatabase.perTestClass();
    MailClaimer cut;

    @BeforeEach
    void newCut() {
        cut = new MailClaimer();
    }

    @Test
    void claimTakesTheBestDueMailsFirstUpToTheLimitAndLeasesThem() {
        List<MailMessage> rows = db.insert(
                Rows.queued("old normal, first id", 4, NOW.minusMinutes(3)),
                Rows.queued("urgent, newest", 9, NOW.minusMinutes(1)),
                Rows.queued("oldest normal", 4, NOW.minusMinutes(5)),
                Rows.queued("old normal, second id", 4, NOW.minusMinutes(3)),
                Rows.queued("bulk, oldest of all", 0, NOW.minusMinutes(10)));

        List<MailMessage> claimed = claim("host/server#1", 3, NOW);

        assertThat(claimed).extracting(MailMessage::getSubject)
                .containsExactly("urgent, newest", "oldest normal", "old normal, first id");
        LocalDateTime expiry = NOW.plus(Duration.ofMillis(LEASE_MS));
        for (MailMessage mail : claimed) {
            MailMessage stored = db.reload(mail.getId());
            assertThat(stored.getStatus()).isEqualTo(MailStatus.SENDING);
            assertThat(stored.getLeaseOwner()).isEqualTo("host/server#1");
            assertThat(stored.getLeaseExpiresAt()).isEqualTo(expiry);
        }
        for (MailMessage notClaimed : List.of(rows.get(3), rows.get(4))) {
            MailMessage stored = db.reload(notClaimed.getId());
            assertThat(stored.getStatus()).isEqualTo(MailStatus.QUEUED);
            assertThat(stored.getLeaseOwner()).isNull();
            assertThat(stored.getLeaseExpiresAt()).isNull();
        }
    }

    @Test
    void claimReturnsTheRowsWithEverythingNeededToSendThem() {
        MailMessage row = Rows.queued("Hello", NOW.minusMinutes(1));
        row.setCc(new ArrayList<>(List.of("cc1@example.com", "cc2@example.com")));
        row.setBcc(new ArrayList<>(List.of("bcc@example.com")));
        row.setHtmlBody("<p>Hello</p>");
        db.insert(row);

        List<MailMessage> claimed = claim("host/server#1", 10, NOW);

        assertThat(claimed).singleElement().satisfies(mail -> {
            assertThat(mail.getMessageId()).isEqualTo(row.getMessageId());
            assertThat(mail.getTo()).containsExactly("to@example.com");
            assertThat(mail.getCc()).containsExactly("cc1@example.com", "cc2@example.com");
            assertThat(mail.getBcc()).containsExactly("bcc@example.com");
            assertThat(mail.getTextBody()).isEqualTo("Hello");
            assertThat(mail.getHtmlBody()).isEqualTo("<p>Hello</p>");
            assertThat(mail.getAttemptsRemaining()).isEqualTo(5);
        });
    }

    @Test
    void claimBringsEachMailsAttachmentsAndHeadersInOrderWithOneQueryPerTableForTheWholeChunk() {
        List<MailMessage> mails = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            MailMessage mail = Rows.queued("with parts " + i, NOW.minusMinutes(5 - i));
            if (i != 2) { // one mail without parts among them
                mail.setAttachments(new ArrayList<>(List.of(
                        new MailAttachment(0, "first-" + i + ".pdf", "application/pdf", new byte[]{(byte) i, 1}),
                        new MailAttachment(1, "second-" + i + ".txt", "text/plain", new byte[]{(byte) i, 2}))));
                mail.setHeaders(new ArrayList<>(List.of(new MailHeader(0, "X-Index", Integer.toString(i)))));
            }
            mails.add(mail);
        }
        db.run(em -> {
            mails.forEach(em::persist);
            MailParts.persist(em, mails);
        });
        SqlRecorder.clear();

        List<MailMessage> claimed = claim("host/server#1", 10, NOW);

        assertThat(claimed).hasSize(5);
        for (int i = 0; i < 5; i++) {
            MailMessage mail = claimed.get(i);
            if (i == 2) {
                assertThat(mail.getAttachments()).isEmpty();
                assertThat(mail.getHeaders()).isEmpty();
                continue;
            }
            byte index = (byte) i;
            assertThat(mail.getAttachments()).extracting(MailAttachment::getFilename)
                    .containsExactly("first-" + i + ".pdf", "second-" + i + ".txt");
            assertThat(mail.getAttachments()).extracting(MailAttachment::getContent)
                    .containsExactly(new byte[]{index, 1}, new byte[]{index, 2});
            assertThat(mail.getHeaders()).extracting(MailHeader::getValue).containsExactly(Integer.toString(i));
        }
        assertThat(SqlRecorder.statements()).filteredOn(sql -> sql.contains("MAIL_ATTACHMENT")).hasSize(1);
        assertThat(SqlRecorder.statements()).filteredOn(sql -> sql.contains("MAIL_HEADER")).hasSize(1);
    }

    @Test
    void mailsNotDueOrOutOfAttemptsOrFinishedAreNotClaimed() {
        MailMessage dueNow = Rows.queued("due exactly now", NOW.minusMinutes(1));
        dueNow.setNotBefore(NOW);
        MailMessage later = Rows.queued("not before a millisecond from now", NOW.minusMinutes(1));
        later.setNotBefore(NOW.plusNanos(1_000_000));
        MailMessage spent = Rows.queued("no attempts left", NOW.minusMinutes(1));
        spent.setAttemptsRemaining(0);
        MailMessage sent = Rows.queued("sent", NOW.minusMinutes(1));
        sent.setStatus(MailStatus.SENT);
        MailMessage cancelled = Rows.queued("cancelled", NOW.minusMinutes(1));
        cancelled.setStatus(MailStatus.CANCELLED);
        MailMessage failed = Rows.queued("failed", NOW.minusMinutes(1));
        failed.setStatus(MailStatus.FAILED);
        db.insert(dueNow, later, spent, sent, cancelled, failed);

        List<MailMessage> claimed = claim("host/server#1", 100, NOW);

        assertThat(claimed).extracting(MailMessage::getSubject).containsExactly("due exactly now");
        assertThat(db.reload(later.getId()).getStatus()).isEqualTo(MailStatus.QUEUED);
        assertThat(db.reload(spent.getId()).getStatus()).isEqualTo(MailStatus.QUEUED);
        assertThat(db.reload(sent.getId()).getStatus()).isEqualTo(MailStatus.SENT);
        assertThat(db.reload(cancelled.getId()).getStatus()).isEqualTo(MailStatus.CANCELLED);
        assertThat(db.reload(failed.getId()).getStatus()).isEqualTo(MailStatus.FAILED);
        assertThat(db.reload(later.getId()).getLeaseOwner()).isNull();
    }

    @Test
    void nothingDueGivesAnEmptyClaim() {
        db.insert(Rows.queued("tomorrow", NOW.plusDays(1)));

        assertThat(claim("host/server#1", 10, NOW)).isEmpty();
    }

    @Test
    void aMailWhoseLeaseExpiredIsTakenOverByTheNextClaimer() {
        MailMessage abandoned = Rows.queued("claimer died", NOW.minusMinutes(20));
        abandoned.lease("host/server#1", NOW.minusNanos(1_000_000));
        MailMessage busy = Rows.queued("claimer still sending", NOW.minusMinutes(20));
        busy.lease("host/server#2", NOW.plusMinutes(1));
        MailMessage expiresNow = Rows.queued("lease ends this instant", NOW.minusMinutes(20));
        expiresNow.lease("host/server#4", NOW);
        db.insert(abandoned, busy, expiresNow);

        List<MailMessage> claimed = claim("host/server#3", 10, NOW);

        assertThat(claimed).extracting(MailMessage::getId).containsExactly(abandoned.getId());
        MailMessage takenOver = db.reload(abandoned.getId());
        assertThat(takenOver.getStatus()).isEqualTo(MailStatus.SENDING);
        assertThat(takenOver.getLeaseOwner()).isEqualTo("host/server#3");
        assertThat(takenOver.getLeaseExpiresAt()).isEqualTo(NOW.plus(Duration.ofMillis(LEASE_MS)));
        assertThat(takenOver.getLastError()).contains("lease expired");
        MailMessage stillBusy = db.reload(busy.getId());
        assertThat(stillBusy.getStatus()).isEqualTo(MailStatus.SENDING);
        assertThat(stillBusy.getLeaseOwner()).isEqualTo("host/server#2");
        assertThat(stillBusy.getLeaseExpiresAt()).isEqualTo(NOW.plusMinutes(1));
        assertThat(db.reload(expiresNow.getId()).getLeaseOwner()).isEqualTo("host/server#4");
    }

    @Test
    void aLeaseThatExpiredAfterSendingBeganIsLoggedInDoubtAndResentByDefault() {
        MailMessage doubtful = Rows.queued("claimer died mid-send", NOW.minusMinutes(20));
        doubtful.lease("host/server#1", NOW.minusMinutes(1));
        db.insert(doubtful);
        sendStarted(doubtful.getId(), NOW.minusMinutes(16));

        List<MailMessage> claimed = claim("host/server#2", 10, NOW);

        assertThat(claimed).extracting(MailMessage::getId).containsExactly(doubtful.getId());
        MailMessage stored = db.reload(doubtful.getId());
        assertThat(stored.getAttemptsRemaining()).as("the lost attempt counts").isEqualTo(4);
        assertThat(stored.getSendStartedAt()).as("the new claimer has not begun yet").isNull();
        assertThat(stored.getLastError()).contains("in doubt").contains("same Message-ID");
        assertThat(db.attempts(doubtful.getId())).singleElement().satisfies(attempt -> {
            assertThat(attempt.getOutcome()).isEqualTo(AttemptOutcome.IN_DOUBT);
            assertThat(attempt.getLeaseOwner()).isEqualTo("host/server#1");
            assertThat(attempt.getServerInstance()).isEqualTo("host/server");
            assertThat(attempt.getStartedAt()).isEqualTo(NOW.minusMinutes(16));
        });
    }

    @Test
    void withTheHoldPolicyAnInDoubtMailIsHeldForReviewAndNotClaimed() {
        MailMessage doubtful = Rows.queued("claimer died mid-send", NOW.minusMinutes(20));
        doubtful.lease("host/server#1", NOW.minusMinutes(1));
        MailMessage neverStarted = Rows.queued("claimer died before sending", NOW.minusMinutes(20));
        neverStarted.lease("host/server#1", NOW.minusMinutes(1));
        db.insert(doubtful, neverStarted);
        sendStarted(doubtful.getId(), NOW.minusMinutes(16));

        List<MailMessage> claimed = db.inTransaction(em -> {
            cut.em = em;
            return cut.claim("host/server#2", LEASE_MS, 10, NOW, InDoubtPolicy.HOLD);
        });

        assertThat(claimed).extracting(MailMessage::getId).containsExactly(neverStarted.getId());
        assertThat(db.reload(doubtful.getId()).getStatus()).isEqualTo(MailStatus.HELD);
        assertThat(db.reload(doubtful.getId()).getLastError()).contains("held for review");
        assertThat(db.attempts(doubtful.getId())).extracting(MailAttempt::getOutcome).containsExactly(AttemptOutcome.IN_DOUBT);
        assertThat(db.attempts(neverStarted.getId())).as("nothing was sent: no attempt").isEmpty();
        assertThat(db.reload(neverStarted.getId()).getAttemptsRemaining()).isEqualTo(5);
    }

    @Test
    void anInDoubtMailWithoutAttemptsLeftIsHeldEvenUnderTheResendPolicy() {
        MailMessage doubtful = Rows.queued("last attempt lost", NOW.minusMinutes(20));
        doubtful.setAttemptsRemaining(1);
        doubtful.lease("host/server#1", NOW.minusMinutes(1));
        db.insert(doubtful);
        sendStarted(doubtful.getId(), NOW.minusMinutes(16));

        assertThat(claim("host/server#2", 10, NOW)).isEmpty();

        MailMessage stored = db.reload(doubtful.getId());
        assertThat(stored.getStatus()).isEqualTo(MailStatus.HELD);
        assertThat(stored.getAttemptsRemaining()).isZero();
    }

    @Test
    void aClaimCarriesTheRecipientsEarlierAttemptsSettled() {
        MailMessage partly = Rows.queued("partly delivered", NOW.minusMinutes(20));
        db.insert(partly);
        db.run(em -> {
            for (String[] r : new String[][]{{"Ann@To.Example", "SENT"}, {"bob@to.example", "REFUSED"},
                    {"cid@to.example", "DEFERRED"}}) {
                em.createNativeQuery("INSERT INTO MAIL_RECIPIENT (MAIL_ID, ADDRESS, STATUS, UPDATED_AT)"
                                + " VALUES (?, ?, ?, ?)")
                        .setParameter(1, partly.getId()).setParameter(2, r[0]).setParameter(3, r[1])
                        .setParameter(4, java.sql.Timestamp.valueOf(NOW)).executeUpdate();
            }
        });

        List<MailMessage> claimed = claim("host/server#2", 10, NOW);

        assertThat(claimed).singleElement().satisfies(mail -> assertThat(mail.getSettledRecipients())
                .containsOnly(org.assertj.core.api.Assertions.entry("ann@to.example", RecipientStatus.SENT),
                        org.assertj.core.api.Assertions.entry("bob@to.example", RecipientStatus.REFUSED)));
    }

    private static void sendStarted(long id, LocalDateTime at) {
        db.run(em -> em.createNativeQuery("UPDATE MAIL_MESSAGE SET SEND_STARTED_AT = ? WHERE ID = ?")
                .setParameter(1, java.sql.Timestamp.valueOf(at)).setParameter(2, id).executeUpdate());
    }

    @Test
    void anExpiredLeaseComesBackEvenWhenItsMailIsNotClaimedAtOnce() {
        MailMessage abandoned = Rows.queued("claimer died", NOW.minusMinutes(20));
        abandoned.lease("host/server#1", NOW.minusMinutes(5));
        MailMessage urgent = Rows.queued("urgent", 9, NOW.minusMinutes(1));
        db.insert(abandoned, urgent);

        List<MailMessage> claimed = claim("host/server#2", 1, NOW);

        assertThat(claimed).extracting(MailMessage::getSubject).containsExactly("urgent");
        MailMessage released = db.reload(abandoned.getId());
        assertThat(released.getStatus()).isEqualTo(MailStatus.QUEUED);
        assertThat(released.getLeaseOwner()).isNull();
        assertThat(released.getLeaseExpiresAt()).isNull();
    }

    /**
     * The lease is taken under a real lock: until the claim commits, its transaction holds an exclusive
     * row lock on each row it leased and on no other (Derby's lock table says so), and the statement
     * that takes them carries the lock clause.
     */
    @Test
    void theClaimHoldsExclusiveRowLocksOnWhatItLeasedUntilItCommits() throws Exception {
        assumeTrue(QueueDatabase.isDerby(), "reads Derby's lock table");
        assertThat(CursorLease.sql(2)).contains("FOR UPDATE OF STATUS, LEASE_OWNER, LEASE_EXPIRES_AT");
        try (QueueDatabase own = QueueDatabase.create()) {
            own.insert(Rows.queued("a", NOW.minusMinutes(3)), Rows.queued("b", NOW.minusMinutes(2)),
                    Rows.queued("c", NOW.minusMinutes(1)));
            EntityManager em = own.entityManager();
            try {
                em.getTransaction().begin();
                MailClaimer claimer = new MailClaimer();
                claimer.em = em;
                List<Long> leased = ids(claimer.claim("host/server#A", LEASE_MS, 2, NOW));

                assertThat(leased).hasSize(2);
                assertThat(exclusiveRowLocks(own)).as("X row locks held before commit").isEqualTo(2);
                em.getTransaction().commit();
                assertThat(exclusiveRowLocks(own)).as("X row locks after commit").isZero();
            } finally {
                if (em.getTransaction().isActive()) {
                    em.getTransaction().rollback();
                }
                em.close();
            }
        }
    }

    @Test
    void twoClaimersInTurnNeverGetTheSameMail() {
        for (int i = 0; i < 5; i++) {
            db.insert(Rows.queued("mail " + i, NOW.minusMinutes(10 - i)));
        }

        List<Long> first = ids(claim("host/server#1", 3, NOW));
        List<Long> second = ids(claim("host/server#2", 3, NOW));
        List<Long> third = ids(claim("host/server#3", 3, NOW));

        assertThat(first).hasSize(3);
        assertThat(second).hasSize(2).doesNotContainAnyElementsOf(first);
        assertThat(third).isEmpty();
        first.forEach(id -> assertThat(db.reload(id).getLeaseOwner()).isEqualTo("host/server#1"));
        second.forEach(id -> assertThat(db.reload(id).getLeaseOwner()).isEqualTo("host/server#2"));
    }

    @Test
    void claimableCountsDueMailsAndExpiredLeasesWithoutClaimingThem() {
        MailMessage expired1 = Rows.queued("expired lease 1", NOW.minusMinutes(30));
        expired1.lease("host/server#1", NOW.minusMinutes(1));
        MailMessage expired2 = Rows.queued("expired lease 2", NOW.minusMinutes(30));
        expired2.lease("host/server#1", NOW.minusMinutes(1));
        MailMessage active = Rows.queued("active lease", NOW.minusMinutes(30));
        active.lease("host/server#2", NOW.plusMinutes(1));
        db.insert(Rows.queued("due 1", NOW.minusMinutes(3)), Rows.queued("due 2", NOW.minusMinutes(2)),
                Rows.queued("due 3", NOW.minusMinutes(1)), Rows.queued("later", NOW.plusMinutes(1)),
                expired1, expired2, active);

        int all = db.inTransaction(em -> {
            cut.em = em;
            return cut.claimable(NOW, 10);
        });
        int capped = db.inTransaction(em -> {
            cut.em = em;
            return cut.claimable(NOW, 2);
        });

        assertThat(all).isEqualTo(5);
        assertThat(capped).isEqualTo(4);
        assertThat(db.reload(expired1.getId()).getLeaseOwner()).isEqualTo("host/server#1");
        assertThat(claim("host/server#3", 10, NOW)).hasSize(5);
    }

    /**
     * Claimer B claims while A's claim is not yet committed: B waits for A's exclusive row locks (in its
     * pick or in its locking cursor, as Derby's plan has it), and must then find those rows taken and
     * claim only the others.
     */
    @Test
    void aClaimerThatPickedRowsAnotherIsLeasingWaitsAndThenTakesOnlyTheMailsLeft() throws Exception {
        assumeTrue(QueueDatabase.isDerby(), "reads Derby's lock table; SKIP LOCKED databases do not wait");
        try (QueueDatabase own = QueueDatabase.create()) {
            for (int i = 0; i < 5; i++) {
                own.insert(Rows.queued("mail " + i, NOW.minusMinutes(10 - i)));
            }
            EntityManager emA = own.entityManager();
            try {
                emA.getTransaction().begin();
                MailClaimer claimerA = new MailClaimer();
                claimerA.em = emA;
                List<Long> byA = ids(claimerA.claim("host/server#A", LEASE_MS, 3, NOW)); // locked, not committed

                CompletableFuture<List<Long>> byB = CompletableFuture.supplyAsync(() -> own.inTransaction(emB -> {
                    MailClaimer claimerB = new MailClaimer();
                    claimerB.em = emB;
                    return ids(claimerB.claim("host/server#B", LEASE_MS, 3, NOW));
                }));
                assertThat(awaitStatementWaitingForALock(own)).as("B waits for A's row locks").isNotBlank();
                emA.getTransaction().commit();

                assertThat(byA).hasSize(3);
                assertThat(byB.get(30, TimeUnit.SECONDS)).hasSize(2).doesNotContainAnyElementsOf(byA);
                byA.forEach(id -> assertThat(own.reload(id).getLeaseOwner()).isEqualTo("host/server#A"));
            } finally {
                if (emA.getTransaction().isActive()) {
                    emA.getTransaction().rollback(); // never leave row locks behind
                }
                emA.close();
            }
        }
    }

    /**
     * On PostgreSQL and MariaDB the claim skips what another claimer holds: B claims while A's claim
     * is not committed, and gets the other rows at once instead of waiting (a plain FOR UPDATE would
     * block until A commits; NOWAIT would fail). The statement carries the lock clause.
     */
    @Test
    void aSecondClaimerSkipsTheRowsTheFirstHoldsWithoutWaiting() throws Exception {
        assumeTrue(!QueueDatabase.isDerby(), "Derby has no SKIP LOCKED");
        assertThat(SkipLockedLease.PICK).endsWith("FOR UPDATE SKIP LOCKED");
        try (QueueDatabase own = QueueDatabase.create()) {
            for (int i = 0; i < 5; i++) {
                own.insert(Rows.queued("mail " + i, NOW.minusMinutes(10 - i)));
            }
            EntityManager emA = own.entityManager();
            try {
                emA.getTransaction().begin();
                MailClaimer claimerA = new MailClaimer();
                claimerA.em = emA;
                List<Long> byA = ids(claimerA.claim("host/server#A", LEASE_MS, 3, NOW)); // locked, not committed

                List<Long> byB = CompletableFuture.supplyAsync(() -> own.inTransaction(emB -> {
                    MailClaimer claimerB = new MailClaimer();
                    claimerB.em = emB;
                    return ids(claimerB.claim("host/server#B", LEASE_MS, 3, NOW));
                })).get(10, TimeUnit.SECONDS); // while A still holds its rows

                assertThat(byA).hasSize(3);
                assertThat(byB).hasSize(2).doesNotContainAnyElementsOf(byA);
                emA.getTransaction().commit();
                byA.forEach(id -> assertThat(own.reload(id).getLeaseOwner()).isEqualTo("host/server#A"));
                byB.forEach(id -> assertThat(own.reload(id).getLeaseOwner()).isEqualTo("host/server#B"));
            } finally {
                if (emA.getTransaction().isActive()) {
                    emA.getTransaction().rollback();
                }
                emA.close();
            }
        }
    }

    private List<MailMessage> claim(String owner, int limit, LocalDateTime now) {
        return db.inTransaction(em -> {
            cut.em = em;
            return cut.claim(owner, LEASE_MS, limit, now);
        });
    }

    private static List<Long> ids(List<MailMessage> mails) {
        return mails.stream().map(MailMessage::getId).toList();
    }

    /** @return exclusive row locks on MAIL_MESSAGE granted to any transaction, from Derby's lock table */
    private static int exclusiveRowLocks(QueueDatabase database) throws SQLException {
        try (Connection c = DriverManager.getConnection(database.url(), "app", "app");
             Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT COUNT(*) FROM SYSCS_DIAG.LOCK_TABLE WHERE TABLENAME = 'MAIL_MESSAGE'"
                     + " AND TYPE = 'ROW' AND MODE = 'X' AND STATE = 'GRANT'")) {
            r.next();
            return r.getInt(1);
        }
    }

    /**
     * Waits, at most 20 s, until a transaction waits for a row lock, as Derby's lock table tells.
     *
     * @return the SQL of the statement that waits
     */
    private static String awaitStatementWaitingForALock(QueueDatabase database) throws SQLException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        try (Connection c = DriverManager.getConnection(database.url(), "app", "app");
             Statement s = c.createStatement()) {
            while (System.nanoTime() < deadline) {
                try (ResultSet r = s.executeQuery("SELECT t.SQL_TEXT FROM SYSCS_DIAG.LOCK_TABLE l"
                        + " JOIN SYSCS_DIAG.TRANSACTION_TABLE t ON l.XID = t.XID WHERE l.STATE = 'WAIT'")) {
                    if (r.next()) {
                        return r.getString(1);
                    }
                }
                Thread.sleep(5);
            }
        }
        throw new AssertionError("the second claimer never waited for the first one's locks");
    }
}
