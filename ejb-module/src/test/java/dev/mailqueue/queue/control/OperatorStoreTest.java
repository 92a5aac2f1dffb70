package dev.mailqueue.queue.control;

import dev.mailqueue.api.MailStatus;
import dev.mailqueue.testsupport.QueueDatabase;
import dev.mailqueue.testsupport.TestMails;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static dev.mailqueue.testsupport.TestMails.mail;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What operators do, on the real schema and database: requeue, cancel, delete and the retention delete,
 * each guarded by the statuses it applies to; and a requeue that can never interleave with a claim.
 */
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

    long enqueue(NewMail mail) {
        return db.inTransaction(() -> enqueuer.enqueue(TestMails.groups(mail))).get(0).get(0).id();
    }

    void set(long id, MailStatus status) {
        db.update("UPDATE MAIL_MESSAGE SET STATUS = ?, ATTEMPTS_REMAINING = 0 WHERE ID = ?", status.name(), id);
    }

    void recipient(long id, String address, String status) {
        db.update("INSERT INTO MAIL_RECIPIENT (MAIL_ID, ADDRESS, STATUS, UPDATED_AT) VALUES (?, ?, ?, ?)", id, address,
                status, java.sql.Timestamp.from(NOW));
    }

    String status(long id) {
        return db.text("SELECT STATUS FROM MAIL_MESSAGE WHERE ID = ?", id);
    }

    @Test
    void requeueTakesOnlyRequeueableMailsAndForgetsTheirRefusedRecipientsButNotTheAcceptedOnes() {
        long failed = enqueue(mail("failed", 4, NOW));
        set(failed, MailStatus.FAILED);
        recipient(failed, "accepted@x.example", "SENT");
        recipient(failed, "refused@x.example", "REFUSED");
        long queued = enqueue(mail("still queued", 4, NOW));
        recipient(queued, "refused@x.example", "REFUSED");

        int changed = db.inTransaction(() -> cut.requeue(List.of(failed, queued), NOW.plusSeconds(5), 3, NOW.plusSeconds(3600)));

        assertThat(changed).isEqualTo(1);
        assertThat(status(failed)).isEqualTo("QUEUED");
        assertThat(db.number("SELECT ATTEMPTS_REMAINING FROM MAIL_MESSAGE WHERE ID = ?", failed)).isEqualTo(3);
        assertThat(db.text("SELECT ADDRESS FROM MAIL_RECIPIENT WHERE MAIL_ID = ?", failed)).isEqualTo("accepted@x.example");
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

        CompletableFuture<Void> operator = CompletableFuture.runAsync(() -> db.inTransaction(() -> {
            cut.requeue(List.of(failed), NOW, 3, null);
            requeued.countDown();
            claimed.await(2, TimeUnit.SECONDS); // hold the transaction open while the claimer tries
            return null;
        }));
        requeued.await(10, TimeUnit.SECONDS);
        CompletableFuture<List<ClaimedMail>> claimer = CompletableFuture.supplyAsync(() -> db.inTransaction(
                () -> claims.claim("host/server#1", "host/server", NOW.plusSeconds(1), NOW.plusSeconds(61), 10,
                        InDoubtPolicy.RESEND, TestMails.ACCOUNTS).mails()));
        List<ClaimedMail> first = claimer.get(20, TimeUnit.SECONDS);
        claimed.countDown();
        operator.get(20, TimeUnit.SECONDS);

        List<ClaimedMail> seen = first.isEmpty()
                ? db.inTransaction(() -> claims.claim("host/server#1", "host/server", NOW.plusSeconds(1), NOW.plusSeconds(61),
                10, InDoubtPolicy.RESEND, TestMails.ACCOUNTS).mails())
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
        db.update("UPDATE MAIL_MESSAGE SET STATUS = 'SENDING', LEASE_OWNER = 'x#1' WHERE ID = ?", sending);

        assertThat(db.inTransaction(() -> cut.cancel(List.of(queued, held, sending), EnumSet.of(MailStatus.QUEUED)))).isEqualTo(1);
        assertThat(db.inTransaction(() -> cut.cancel(List.of(held, sending), OperatorStore.CANCELLABLE))).isEqualTo(1);
        assertThat(status(queued)).isEqualTo("CANCELLED");
        assertThat(status(held)).isEqualTo("CANCELLED");
        assertThat(status(sending)).isEqualTo("SENDING");

        assertThat(db.inTransaction(() -> cut.delete(List.of(queued, sending)))).isEqualTo(1);
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_MESSAGE WHERE ID IN (?, ?)", queued, sending)).isEqualTo(1);
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
        return db.inTransaction(() -> enqueuer.enqueue(List.of(group))).get(0).stream().map(Enqueued::id).toList();
    }

    @Test
    void deletingTheFirstCopyPassesItsFilesToTheCopiesThatStay() {
        byte[] file = "shared".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        List<Long> ids = copiesWithAFile(file);

        assertThat(db.inTransaction(() -> cut.delete(List.of(ids.get(0))))).isEqualTo(1);

        long heir = ids.get(1);
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_MESSAGE WHERE COPY_OF = ?", heir)).isEqualTo(2);
        assertThat(claims.attachmentContent(heir, 0)).isEqualTo(file);
        List<ClaimedMail> claimed = db.inTransaction(() -> claims.claim("host/server#1", "host/server",
                NOW.plusSeconds(1), NOW.plusSeconds(61), 10, InDoubtPolicy.RESEND, TestMails.ACCOUNTS)).mails();
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
        set(ids.get(0), MailStatus.SENT); // the first copy is old and done, the others still queued
        assertThat(db.inTransaction(() -> cut.deleteFinished(List.of(ids.get(0)), NOW.minusSeconds(86_400 * 15))))
                .isEqualTo(1);
        assertThat(claims.attachmentContent(ids.get(1), 0)).containsExactly(2);
    }

    @Test
    void retentionDeletesFinishedMailsWhoseEveryTimeIsBeforeTheCutoff() {
        long old = enqueue(mail("old and sent", 4, NOW.minusSeconds(86_400 * 20)));
        set(old, MailStatus.SENT);
        long recent = enqueue(mail("old but attempted lately", 4, NOW.minusSeconds(86_400 * 20)));
        set(recent, MailStatus.FAILED);
        db.update("UPDATE MAIL_MESSAGE SET LAST_ATTEMPT_AT = ? WHERE ID = ?", java.sql.Timestamp.from(NOW), recent);
        long live = enqueue(mail("old but queued", 4, NOW.minusSeconds(86_400 * 20)));
        Instant cutoff = NOW.minusSeconds(86_400 * 15);

        List<Long> found = db.inTransaction(() -> cut.finishedBefore(cutoff, 0, 10));

        assertThat(found).containsExactly(old);
        assertThat(db.inTransaction(() -> cut.deleteFinished(List.of(old, recent, live), cutoff))).isEqualTo(1);
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_MESSAGE")).isEqualTo(2);
    }

    /** README "Not yet": an unsubscribe's event belongs to no mail, so retention deletes it on its own. */
    @Test
    void retentionDeletesOldEventsOfNoMailWithTheirDeliveriesAndLeavesTheRest() {
        long mail = enqueue(mail("has an event", 4, NOW.minusSeconds(86_400 * 20)));
        Instant cutoff = NOW.minusSeconds(86_400 * 15);
        event(null, NOW.minusSeconds(86_400 * 20));
        event(null, NOW.minusSeconds(86_400));
        event(mail, NOW.minusSeconds(86_400 * 20));
        long old = db.number("SELECT MIN(ID) FROM MAIL_EVENT WHERE MAIL_ID IS NULL");
        db.update("INSERT INTO WEBHOOK_DELIVERY (ENDPOINT, EVENT_ID, MAIL_ID, STATUS, ATTEMPTS, CREATED_AT, NEXT_ATTEMPT_AT)"
                + " VALUES ('crm', ?, NULL, 'PENDING', 0, ?, ?)", old, java.sql.Timestamp.from(NOW), java.sql.Timestamp.from(NOW));

        assertThat(db.inTransaction(() -> cut.deleteMaillessEventsBefore(cutoff))).isEqualTo(1);

        assertThat(db.number("SELECT COUNT(*) FROM MAIL_EVENT WHERE ID = " + old)).isZero();
        assertThat(db.number("SELECT COUNT(*) FROM WEBHOOK_DELIVERY")).as("its delivery went with it").isZero();
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_EVENT WHERE MAIL_ID IS NULL")).as("the recent one stays").isEqualTo(1);
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_EVENT WHERE MAIL_ID = " + mail)).as("a mail's events go with the mail")
                .isEqualTo(1);
    }

    void event(Long mailId, Instant at) {
        db.update("INSERT INTO MAIL_EVENT (MAIL_ID, EVENT_TYPE, OCCURRED_AT, PUBLISHED) VALUES ("
                + (mailId == null ? "NULL" : mailId) + ", 'unsubscribed', ?, 1)", java.sql.Timestamp.from(at));
    }
}
