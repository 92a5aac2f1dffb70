package dev.mailqueue.queue.control;

import dev.mailqueue.settings.control.InDoubtPolicy;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.testsupport.QueueDatabase;
import dev.mailqueue.testsupport.TestMails;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static dev.mailqueue.testsupport.TestMails.mail;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What operators do, on the real schema and database: requeue, cancel, delete and the retention delete,
 * each guarded by the statuses it applies to ({@link MailLifecycle}), each status change one row of the mail's log;
 * and a requeue that can never interleave with a claim.
 */
@Tag("database")
class OperatorStoreTest {

    static final Instant NOW = Instant.parse("2030-03-14T09:26:53Z");

    @RegisterExtension
    static final QueueDatabase db = QueueDatabase.perTestClass();

    OperatorStore cut;
    ClaimStore claims;
    EnqueueStore enqueuer;

    @BeforeEach
    void store() {
        cut = db.operatorStore();
        claims = db.claimStore();
        enqueuer = db.enqueueStore();
    }

    static final String SERVER = "host/server";
    static final String ACTOR = "operator:admin";

    long enqueue(NewMail mail) {
        return db.inTransaction(() -> enqueuer.enqueue(TestMails.groups(mail), SERVER)).get(0).get(0).id();
    }

    /** Ends the mail in {@code status} at {@code at}, as a claimer's last outcome would. */
    void finish(long id, MailStatus status, Instant at) {
        db.update("DELETE FROM MAIL_QUEUE WHERE MAIL_ID = ?", id);
        db.update("INSERT INTO MAIL_ATTEMPT (ID, MAIL_ID, STARTED_AT, FINISHED_AT, SERVER_INSTANCE, LEASE_OWNER, OUTCOME,"
                + " MAIL_STATUS) VALUES (" + AttemptLog.nextId(dev.mailqueue.schema.control.DatabaseKind.valueOf(
                QueueDatabase.KIND.toUpperCase(java.util.Locale.ROOT))) + ", ?, ?, ?, 'host/server', 'test', ?, ?)", id,
                java.sql.Timestamp.from(at), java.sql.Timestamp.from(at), status == MailStatus.SENT ? "SENT" : "STATE", status.name());
    }

    void set(long id, MailStatus status) {
        finish(id, status, NOW);
    }

    void recipient(long id, String address, String status) {
        db.update("INSERT INTO MAIL_RECIPIENT (MAIL_ID, ADDRESS, ATTEMPT_ID, STATUS, UPDATED_AT) VALUES (?, ?, 1, ?, ?)", id,
                address, status, java.sql.Timestamp.from(NOW));
    }

    String status(long id) {
        return db.text("SELECT STATUS FROM MAIL_STATE WHERE MAIL_ID = ?", id);
    }

    Lease lease(String owner) {
        return db.inTransaction(() -> claims.start(owner, NOW, NOW.plusSeconds(60)));
    }

    List<ClaimedMail> claimAll(Instant now) {
        Lease lease = lease("host/server#1");
        return db.inTransaction(() -> claims.claim(lease, 1, SERVER, now, now.plusSeconds(60), 10, InDoubtPolicy.RESEND, TestMails.ACCOUNTS,
                false)).mails();
    }

    @Test
    void requeueTakesOnlyRequeueableMailsAndForgetsTheirRefusedRecipientsButNotTheAcceptedOnes() {
        long failed = enqueue(mail("failed", 4, NOW));
        set(failed, MailStatus.FAILED);
        recipient(failed, "accepted@x.example", "SENT");
        recipient(failed, "refused@x.example", "REFUSED");
        long queued = enqueue(mail("still queued", 4, NOW));
        recipient(queued, "refused@x.example", "REFUSED");

        int changed = db.inTransaction(() -> cut.requeue(List.of(failed, queued), NOW.plusSeconds(5), 3, NOW.plusSeconds(3600),
                SERVER, ACTOR));

        assertThat(changed).isEqualTo(1);
        assertThat(status(failed)).isEqualTo("QUEUED");
        assertThat(db.number("SELECT ATTEMPTS_LEFT FROM MAIL_QUEUE WHERE MAIL_ID = ?", failed)).isEqualTo(3);
        assertThat(db.text("SELECT OUTCOME FROM MAIL_ATTEMPT WHERE MAIL_ID = ? AND MAIL_STATUS = 'QUEUED'", failed))
                .isEqualTo("REQUEUED");
        java.util.Map<String, dev.mailqueue.queue.entity.RecipientStatus> settled = db.inTransaction(() -> {
            try (var c = db.dataSource().getConnection()) {
                return StateReads.settledRecipients(c, List.of(failed)).get(failed);
            }
        });
        assertThat(settled).as("the refused recipient is open again, the accepted one stays settled")
                .containsOnlyKeys("accepted@x.example");
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_RECIPIENT WHERE MAIL_ID = ?", queued))
                .as("a mail the requeue did not change keeps its recipients").isEqualTo(1);
    }

    @Test
    void aClaimCannotReadAMailHalfRequeued() throws Exception {
        long failed = enqueue(mail("failed", 4, NOW));
        set(failed, MailStatus.FAILED);
        recipient(failed, "refused@x.example", "REFUSED");
        CountDownLatch requeued = new CountDownLatch(1);
        CountDownLatch claimed = new CountDownLatch(1);

        Lease holder = lease("host/server#1");
        CompletableFuture<Void> operator = CompletableFuture.runAsync(() -> db.inTransaction(() -> {
            cut.requeue(List.of(failed), NOW, 3, null, SERVER, ACTOR);
            requeued.countDown();
            claimed.await(2, TimeUnit.SECONDS); // hold the transaction open while the claimer tries
            return null;
        }));
        requeued.await(10, TimeUnit.SECONDS);
        CompletableFuture<List<ClaimedMail>> claimer = CompletableFuture.supplyAsync(() -> db.inTransaction(
                () -> claims.claim(holder, 1, SERVER, NOW.plusSeconds(1), NOW.plusSeconds(1).plusSeconds(60), 10, InDoubtPolicy.RESEND, TestMails.ACCOUNTS,
                        false).mails()));
        List<ClaimedMail> first = claimer.get(20, TimeUnit.SECONDS);
        claimed.countDown();
        operator.get(20, TimeUnit.SECONDS);

        List<ClaimedMail> seen = first.isEmpty()
                ? db.inTransaction(() -> claims.claim(holder, 2, SERVER, NOW.plusSeconds(1), NOW.plusSeconds(1).plusSeconds(60), 10, InDoubtPolicy.RESEND,
                TestMails.ACCOUNTS, false).mails())
                : first;
        assertThat(seen).singleElement().satisfies(m -> {
            assertThat(m.settled()).as("requeued whole: the refused recipient is open again").isEmpty();
            assertThat(m.attemptsRemaining()).isEqualTo(3);
        });
    }

    @Test
    void cancelAndDeleteChangeOnlyTheStatusesTheyApplyTo() {
        long queued = enqueue(mail("queued", 4, NOW));
        long held = enqueue(mail("held", 4, NOW));
        set(held, MailStatus.HELD);
        long sending = enqueue(mail("sending", 4, NOW));
        Lease holder = lease("x#1");
        db.update("UPDATE MAIL_QUEUE SET CLAIMER = ?, CLAIM_NO = 1 WHERE MAIL_ID = ?", holder.claimer(), sending);

        assertThat(db.inTransaction(() -> cut.cancel(List.of(queued, held, sending), MailLifecycle.CANCELLABLE_BY_SENDER,
                SERVER, "sender:shop"))).isEqualTo(1);
        assertThat(db.inTransaction(() -> cut.cancel(List.of(held, sending), MailLifecycle.CANCELLABLE, SERVER, ACTOR)))
                .isEqualTo(1);
        assertThat(status(queued)).isEqualTo("CANCELLED");
        assertThat(status(held)).isEqualTo("CANCELLED");
        assertThat(status(sending)).isEqualTo("SENDING");
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_ATTEMPT WHERE EVENT_TYPE = 'CANCELLED'")).as("one event each").isEqualTo(2);
        assertThat(db.text("SELECT LEASE_OWNER FROM MAIL_ATTEMPT WHERE MAIL_ID = ? AND OUTCOME = 'CANCELLED'", queued))
                .isEqualTo("sender:shop");

        assertThat(db.inTransaction(() -> cut.delete(List.of(queued, sending)))).isEqualTo(1);
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_MESSAGE WHERE ID IN (?, ?)", queued, sending)).isEqualTo(1);
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_ATTEMPT WHERE MAIL_ID = ?", queued))
                .as("its log went with it (no foreign key since V14: the store deletes it)").isZero();
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_ATTEMPT WHERE MAIL_ID = ?", held))
                .as("the log of a mail that stays is kept: held, then cancelled").isEqualTo(2);
    }

    /** @return ids of a per-recipient group of three copies sharing one stored file */
    List<Long> copiesWithAFile(byte[] file) {
        return copiesWithAFile(file, NOW);
    }

    /** @return ids of a per-recipient group of three copies, enqueued at {@code at}, sharing one stored file */
    List<Long> copiesWithAFile(byte[] file, Instant at) {
        List<NewMail.Attachment> files = List.of(new NewMail.Attachment("f.bin", "application/octet-stream", file));
        MailGroup group = new MailGroup(List.of(
                TestMails.content(mail("copy 1", 4, at), "t", null, files, List.of()),
                TestMails.content(mail("copy 2", 4, at), "t", null, files, List.of()),
                TestMails.content(mail("copy 3", 4, at), "t", null, files, List.of())), true, null, null);
        return db.inTransaction(() -> enqueuer.enqueue(List.of(group), SERVER)).get(0).stream().map(Enqueued::id).toList();
    }

    @Test
    void deletingTheFirstCopyPassesItsFilesToTheCopiesThatStay() {
        byte[] file = "shared".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        List<Long> ids = copiesWithAFile(file);

        assertThat(db.inTransaction(() -> cut.delete(List.of(ids.get(0))))).isEqualTo(1);

        long heir = ids.get(1);
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_MESSAGE WHERE COPY_OF = ?", heir)).isEqualTo(2);
        assertThat(claims.attachmentContent(heir, 0)).isEqualTo(file);
        List<ClaimedMail> claimed = claimAll(NOW.plusSeconds(1));
        assertThat(claimed).extracting(ClaimedMail::id).containsExactly(ids.get(1), ids.get(2));
        assertThat(claimed).allSatisfy(m -> assertThat(m.attachments()).singleElement()
                .satisfies(a -> assertThat(claims.attachmentContent(a.storedWith(), a.seqNo())).isEqualTo(file)));
    }

    @Test
    void deletingAWholeGroupDeletesItsFileAndRetentionPassesItOnLikeADelete() {
        List<Long> whole = copiesWithAFile(new byte[]{1});
        assertThat(db.inTransaction(() -> cut.delete(whole))).isEqualTo(3);
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_ATTACHMENT WHERE MAIL_ID IN (?, ?, ?)",
                whole.get(0), whole.get(1), whole.get(2))).isZero();

        List<Long> ids = copiesWithAFile(new byte[]{2}, NOW.minusSeconds(86_400 * 20));
        finish(ids.get(0), MailStatus.SENT, NOW.minusSeconds(86_400 * 20)); // the first copy is old and done, the others queued
        assertThat(db.inTransaction(() -> cut.deleteFinished(List.of(ids.get(0)), NOW.minusSeconds(86_400 * 15))))
                .isEqualTo(1);
        assertThat(claims.attachmentContent(ids.get(1), 0)).containsExactly(2);
    }

    @Test
    void retentionDeletesFinishedMailsEnqueuedAndFinishedBeforeTheCutoffSuppressedToo() {
        long old = enqueue(mail("old and sent", 4, NOW.minusSeconds(86_400 * 20)));
        finish(old, MailStatus.SENT, NOW.minusSeconds(86_400 * 20));
        long suppressed = enqueue(mail("old and suppressed", 4, NOW.minusSeconds(86_400 * 20)));
        finish(suppressed, MailStatus.SUPPRESSED, NOW.minusSeconds(86_400 * 20));
        long recent = enqueue(mail("old but failed lately", 4, NOW.minusSeconds(86_400 * 20)));
        finish(recent, MailStatus.FAILED, NOW);
        long held = enqueue(mail("old and held", 4, NOW.minusSeconds(86_400 * 20)));
        finish(held, MailStatus.HELD, NOW.minusSeconds(86_400 * 20));
        long live = enqueue(mail("old but queued", 4, NOW.minusSeconds(86_400 * 20)));
        Instant cutoff = NOW.minusSeconds(86_400 * 15);

        List<Long> found = db.inTransaction(() -> cut.finishedBefore(cutoff, 0, 10));

        assertThat(found).as("MailLifecycle.RETAINED_UNTIL_CUTOFF: finished, SUPPRESSED included; never HELD or live")
                .containsExactly(old, suppressed);
        assertThat(db.inTransaction(() -> cut.deleteFinished(List.of(old, suppressed, recent, held, live), cutoff))).isEqualTo(2);
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_MESSAGE")).isEqualTo(3);
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_ATTEMPT WHERE MAIL_ID IN (?, ?)", old, suppressed))
                .as("its log went with it").isZero();
    }

    /** README "Not yet": an unsubscribe's event belongs to no mail, so retention deletes it on its own. */
    @Test
    void retentionDeletesOldEventsOfNoMailWithTheirDeliveriesAndLeavesTheRest() {
        SuppressionStore suppressions = SuppressionStore.on(db.tables());
        long mail = enqueue(mail("has an event", 4, NOW.minusSeconds(86_400 * 20)));
        Instant cutoff = NOW.minusSeconds(86_400 * 15);
        db.inTransaction(() -> suppressions.add("a@x.example", "news", SuppressionStore.Reason.UNSUBSCRIBE, "test",
                NOW.minusSeconds(86_400 * 20)));
        db.inTransaction(() -> suppressions.add("b@x.example", "news", SuppressionStore.Reason.UNSUBSCRIBE, "test",
                NOW.minusSeconds(86_400)));
        db.inTransaction(() -> cut.cancel(List.of(mail), MailLifecycle.CANCELLABLE, SERVER, ACTOR));
        long old = db.number("SELECT MIN(ID) FROM MAIL_ATTEMPT WHERE MAIL_ID IS NULL");
        db.update("INSERT INTO WEBHOOK_DELIVERY (ENDPOINT, EVENT_ID, ATTEMPT_ID, MAIL_ID, STATUS, ATTEMPTS, CREATED_AT,"
                + " NEXT_ATTEMPT_AT) VALUES ('crm', ?, ?, NULL, 'PENDING', 0, ?, ?)", old * 128 + 127, old,
                java.sql.Timestamp.from(NOW), java.sql.Timestamp.from(NOW));

        assertThat(db.inTransaction(() -> cut.deleteMaillessEventsBefore(cutoff))).isEqualTo(1);

        assertThat(db.number("SELECT COUNT(*) FROM MAIL_ATTEMPT WHERE ID = " + old)).isZero();
        assertThat(db.number("SELECT COUNT(*) FROM WEBHOOK_DELIVERY")).as("its delivery went with it").isZero();
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_ATTEMPT WHERE MAIL_ID IS NULL")).as("the recent one stays").isEqualTo(1);
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_ATTEMPT WHERE MAIL_ID = " + mail)).as("a mail's events go with the mail")
                .isEqualTo(1);
    }
}
