package dev.mailqueue.queue.control;

import dev.mailqueue.api.MailStatus;
import dev.mailqueue.testsupport.QueueDatabase;
import dev.mailqueue.testsupport.TestMails;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

import static dev.mailqueue.testsupport.TestMails.mail;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The retention job's removal of content (V20), on the real schema of each database: a mail finished before the
 * content cutoff loses its bodies, attachments and raw bytes and keeps the rest; a mail finished since, a held or a
 * queued one keeps everything; a requeue refuses a mail without content; the files a per-recipient group shares stay
 * with the copies that still need them; and the step's mark only moves forward.
 */
@Tag("database")
class ContentStoreTest {

    static final Instant NOW = Instant.parse("2030-03-14T09:26:53Z");
    static final Instant CUTOFF = NOW.minus(Duration.ofDays(7));
    static final Instant TEN_DAYS_AGO = NOW.minus(Duration.ofDays(10));
    static final String SERVER = "host/server";

    @RegisterExtension
    static final QueueDatabase db = QueueDatabase.perTestClass();

    ContentStore cut;
    EnqueueStore enqueuer;

    @BeforeEach
    void store() {
        cut = ContentStore.on(db.tables());
        enqueuer = db.enqueueStore();
    }

    long enqueue(NewMail mail) {
        return db.inTransaction(() -> enqueuer.enqueue(TestMails.groups(mail), SERVER)).get(0).get(0).id();
    }

    /** @return a mail enqueued ten days ago with both bodies, an attachment and a header field */
    long full(String subject) {
        return enqueue(TestMails.content(mail(subject, 4, TEN_DAYS_AGO), "text of " + subject, "<p>" + subject + "</p>",
                List.of(new NewMail.Attachment("f.txt", "text/plain", subject.getBytes(StandardCharsets.UTF_8))),
                List.of(new NewMail.Header("X-Order", "4711"))));
    }

    /** Ends the mail in {@code status} at {@code at}, as a claimer's last outcome would. */
    void finish(long id, MailStatus status, Instant at) {
        db.update("DELETE FROM MAIL_QUEUE WHERE MAIL_ID = ?", id);
        db.update("INSERT INTO MAIL_ATTEMPT (ID, MAIL_ID, STARTED_AT, FINISHED_AT, SERVER_INSTANCE, LEASE_OWNER, OUTCOME,"
                + " MAIL_STATUS) VALUES (" + AttemptLog.nextId(dev.mailqueue.schema.control.DatabaseKind.valueOf(
                QueueDatabase.KIND.toUpperCase(Locale.ROOT))) + ", ?, ?, ?, 'host/server', 'test', ?, ?)", id,
                Timestamp.from(at), Timestamp.from(at), status == MailStatus.SENT ? "SENT" : "STATE", status.name());
    }

    long rows(String table, long id) {
        return db.number("SELECT COUNT(*) FROM " + table + " WHERE MAIL_ID = ?", id);
    }

    @Test
    void aMailFinishedBeforeTheCutoffLosesItsContentAndKeepsItsMetadata() {
        long sent = full("sent ten days ago");
        finish(sent, MailStatus.SENT, TEN_DAYS_AGO);
        long raw = enqueue(ContentWrittenOnceTest.raw("raw, failed ten days ago"));
        db.update("UPDATE MAIL_MESSAGE SET CREATED_AT = ? WHERE ID = ?", Timestamp.from(TEN_DAYS_AGO), raw);
        finish(raw, MailStatus.FAILED, TEN_DAYS_AGO);
        long recent = full("failed three days ago");
        finish(recent, MailStatus.FAILED, NOW.minus(Duration.ofDays(3)));
        long held = full("held ten days ago");
        finish(held, MailStatus.HELD, TEN_DAYS_AGO);
        long queued = full("queued ten days ago");

        assertThat(db.inTransaction(() -> cut.removable(NOW.minus(Duration.ofDays(30)), CUTOFF, 0, 100)))
                .as("finished before the cutoff, out of the queue, not held").containsExactly(sent, raw);
        assertThat(db.inTransaction(() -> cut.removable(NOW.minus(Duration.ofDays(30)), CUTOFF, sent, 100)))
                .as("after an id").containsExactly(raw);
        assertThat(db.inTransaction(() -> cut.removable(NOW.minus(Duration.ofDays(9)), CUTOFF, 0, 100)))
                .as("a span starting after they finished").isEmpty();
        assertThat(rows("MAIL_RAW", raw)).as("the raw mail's bytes are stored").isEqualTo(1);

        assertThat(db.inTransaction(() -> cut.remove(List.of(sent, raw, recent, held, queued), CUTOFF, NOW))).isEqualTo(2);

        for (long gone : List.of(sent, raw)) {
            assertThat(db.number("SELECT COUNT(*) FROM MAIL_MESSAGE WHERE ID = ? AND TEXT_BODY IS NULL AND HTML_BODY IS NULL"
                    + " AND CONTENT_REMOVED_AT IS NOT NULL", gone)).as("bodies of %s", gone).isEqualTo(1);
            assertThat(rows("MAIL_ATTACHMENT", gone) + rows("MAIL_RAW", gone)).as("files of %s", gone).isZero();
            assertThat(rows("MAIL_ATTEMPT", gone)).as("log of %s", gone).isEqualTo(1);
        }
        assertThat(db.text("SELECT SUBJECT FROM MAIL_MESSAGE WHERE ID = ?", sent)).isEqualTo("sent ten days ago");
        assertThat(rows("MAIL_HEADER", sent)).as("header fields are metadata").isEqualTo(1);
        for (long kept : List.of(recent, held, queued)) { // the negative control, in the same run
            assertThat(db.number("SELECT COUNT(*) FROM MAIL_MESSAGE WHERE ID = ? AND TEXT_BODY IS NOT NULL"
                    + " AND HTML_BODY IS NOT NULL AND CONTENT_REMOVED_AT IS NULL", kept)).as("bodies of %s", kept).isEqualTo(1);
            assertThat(rows("MAIL_ATTACHMENT", kept)).as("attachment of %s", kept).isEqualTo(1);
        }
        assertThat(db.inTransaction(() -> cut.removable(NOW.minus(Duration.ofDays(30)), CUTOFF, 0, 100)))
                .as("read no more once removed").isEmpty();
        assertThat(db.inTransaction(() -> cut.remove(List.of(sent, raw), CUTOFF, NOW))).as("removed once").isZero();
    }

    @Test
    void aMailWithoutItsContentIsNeverRequeuedOneWithItIs() {
        long emptied = full("failed ten days ago");
        finish(emptied, MailStatus.FAILED, TEN_DAYS_AGO);
        long recent = full("failed three days ago");
        finish(recent, MailStatus.FAILED, NOW.minus(Duration.ofDays(3)));
        assertThat(db.inTransaction(() -> cut.remove(List.of(emptied, recent), CUTOFF, NOW))).isEqualTo(1);

        OperatorStore operator = db.operatorStore();
        assertThat(db.inTransaction(() -> operator.requeue(List.of(emptied, recent), NOW, 3, null, SERVER, "operator:admin")))
                .as("only the mail that has its content").isEqualTo(1);
        assertThat(db.text("SELECT STATUS FROM MAIL_STATE WHERE MAIL_ID = ?", emptied)).isEqualTo("FAILED");
        assertThat(db.text("SELECT STATUS FROM MAIL_STATE WHERE MAIL_ID = ?", recent)).isEqualTo("QUEUED");
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_QUEUE WHERE MAIL_ID = ?", emptied)).isZero();

        assertThat(db.inTransaction(() -> cut.remove(List.of(recent), NOW.plus(Duration.ofDays(30)), NOW)))
                .as("a requeued mail is live: it keeps its content whatever the cutoff").isZero();
    }

    @Test
    void theFilesOfAGroupStayWithTheCopiesThatStillNeedThem() {
        byte[] file = "shared".getBytes(StandardCharsets.UTF_8);
        List<NewMail.Attachment> files = List.of(new NewMail.Attachment("f.bin", "application/octet-stream", file));
        MailGroup group = new MailGroup(List.of(
                TestMails.content(mail("copy 1", 4, TEN_DAYS_AGO), "t", null, files, List.of()),
                TestMails.content(mail("copy 2", 4, TEN_DAYS_AGO), "t", null, files, List.of()),
                TestMails.content(mail("copy 3", 4, TEN_DAYS_AGO), "t", null, files, List.of())), true, null, null);
        List<Long> ids = db.inTransaction(() -> enqueuer.enqueue(List.of(group), SERVER)).get(0).stream()
                .map(Enqueued::id).toList();
        finish(ids.get(0), MailStatus.SENT, TEN_DAYS_AGO); // the first copy, which stores the file, is done
        finish(ids.get(1), MailStatus.SENT, TEN_DAYS_AGO);

        assertThat(db.inTransaction(() -> cut.remove(List.of(ids.get(0)), CUTOFF, NOW))).isEqualTo(1);
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_ATTACHMENT WHERE MAIL_ID IN (?, ?, ?)", ids.get(0), ids.get(1),
                ids.get(2))).as("the file, with a copy that still has its content").isEqualTo(1);
        ClaimStore claims = db.claimStore();
        Lease lease = db.inTransaction(() -> claims.start("host/server#1", NOW, NOW.plusSeconds(60)));
        List<ClaimedMail> claimed = db.inTransaction(() -> claims.claim(lease, 1, SERVER, NOW, NOW.plusSeconds(60), 10,
                dev.mailqueue.settings.control.InDoubtPolicy.RESEND, TestMails.ACCOUNTS, false)).mails();
        assertThat(claimed).extracting(ClaimedMail::id).containsExactly(ids.get(2));
        assertThat(claimed.get(0).attachments()).singleElement().satisfies(a ->
                assertThat(claims.attachmentContent(a.storedWith(), a.seqNo())).isEqualTo(file));

        assertThat(db.inTransaction(() -> cut.remove(List.of(ids.get(1)), CUTOFF, NOW))).isEqualTo(1);
        finish(ids.get(2), MailStatus.SENT, TEN_DAYS_AGO);
        assertThat(db.inTransaction(() -> cut.remove(List.of(ids.get(2)), CUTOFF, NOW))).isEqualTo(1);
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_ATTACHMENT WHERE MAIL_ID IN (?, ?, ?)", ids.get(0), ids.get(1),
                ids.get(2))).as("no copy needs it any more").isZero();
    }

    @Test
    void theMarkOnlyMovesForward() {
        assertThat(cut.reached()).as("V20's row: no run yet").isEqualTo(Instant.EPOCH);
        cut.reach(CUTOFF);
        assertThat(cut.reached()).isEqualTo(CUTOFF);
        cut.reach(CUTOFF.minus(Duration.ofDays(20))); // a run with a longer setting
        assertThat(cut.reached()).isEqualTo(CUTOFF);
        cut.reach(NOW);
        assertThat(cut.reached()).isEqualTo(NOW);
    }
}
