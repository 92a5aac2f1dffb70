package dev.mailqueue.queue.control;

import dev.mailqueue.testsupport.QueueDatabase;
import dev.mailqueue.testsupport.TestMails;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;

import static dev.mailqueue.testsupport.TestMails.mail;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The enqueue on the real schema and database: rows, parts, copies and idempotency keys. */
@Tag("database")
class EnqueueStoreTest {

    static final Instant NOW = Instant.parse("2030-03-14T09:26:53Z");

    @RegisterExtension
    static final QueueDatabase db = QueueDatabase.perTestClass();

    EnqueueStore cut;

    @BeforeEach
    void store() {
        cut = db.enqueueStore();
    }

    @Test
    void aMailIsStoredWholeWithItsPartsAndTheirCounts() {
        NewMail mail = TestMails.content(mail("whole", 7, NOW), "text", "<p>html</p>",
                List.of(new NewMail.Attachment("a.txt", "text/plain", "hello".getBytes(StandardCharsets.UTF_8)),
                        new NewMail.Attachment("b.txt", "text/plain", "world".getBytes(StandardCharsets.UTF_8))),
                List.of(new NewMail.Header("X-One", "1")));

        Enqueued queued = db.inTransaction(() -> cut.enqueue(TestMails.groups(mail), "host/server")).get(0).get(0);

        assertThat(queued.messageId()).isEqualTo(mail.messageId());
        assertThat(db.text("SELECT STATUS FROM MAIL_STATE WHERE MAIL_ID = ?", queued.id())).isEqualTo("QUEUED");
        assertThat(db.number("SELECT PRIORITY FROM MAIL_MESSAGE WHERE ID = ?", queued.id())).isEqualTo(7);
        assertThat(db.number("SELECT PRIORITY FROM MAIL_QUEUE WHERE MAIL_ID = ?", queued.id())).isEqualTo(7);
        assertThat(db.number("SELECT ATTEMPTS_LEFT FROM MAIL_QUEUE WHERE MAIL_ID = ?", queued.id())).isEqualTo(5);
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_ATTEMPT")).as("nothing logged for a plain enqueue").isZero();
        assertThat(db.number("SELECT ATTACHMENT_COUNT FROM MAIL_MESSAGE WHERE ID = ?", queued.id())).isEqualTo(2);
        assertThat(db.number("SELECT HEADER_COUNT FROM MAIL_MESSAGE WHERE ID = ?", queued.id())).isEqualTo(1);
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_ATTACHMENT WHERE MAIL_ID = ?", queued.id())).isEqualTo(2);
        assertThat(db.text("SELECT HEADER_VALUE FROM MAIL_HEADER WHERE MAIL_ID = ?", queued.id())).isEqualTo("1");
    }

    @Test
    void aBatchOfRequestsGetsAscendingIdsAndCopiesNameTheFirst() {
        MailGroup copies = new MailGroup(List.of(mail("copy 1", 4, NOW), mail("copy 2", 4, NOW)), true, null, null);
        MailGroup single = new MailGroup(List.of(mail("single", 4, NOW)), false, null, null);

        List<List<Enqueued>> queued = db.inTransaction(() -> cut.enqueue(List.of(copies, single), "host/server"));

        long first = queued.get(0).get(0).id();
        long second = queued.get(0).get(1).id();
        assertThat(second).isGreaterThan(first);
        assertThat(queued.get(1).get(0).id()).isGreaterThan(second);
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_MESSAGE WHERE COPY_OF = ?", first)).isEqualTo(2);
        assertThat(db.text("SELECT COPY_OF FROM MAIL_MESSAGE WHERE ID = ?", queued.get(1).get(0).id())).isNull();
    }

    @Test
    void theCopiesOfAPerRecipientEnqueueStoreTheirFilesOnceWithTheFirst() {
        List<NewMail.Attachment> files = List.of(new NewMail.Attachment("big.bin", "application/octet-stream", new byte[100_000]));
        MailGroup copies = new MailGroup(List.of(
                TestMails.content(mail("copy 1", 4, NOW), "t", null, files, List.of()),
                TestMails.content(mail("copy 2", 4, NOW), "t", null, files, List.of()),
                TestMails.content(mail("copy 3", 4, NOW), "t", null, files, List.of())), true, null, null);

        List<Enqueued> queued = db.inTransaction(() -> cut.enqueue(List.of(copies), "host/server")).get(0);

        long first = queued.get(0).id();
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_ATTACHMENT WHERE MAIL_ID IN (?, ?, ?)",
                first, queued.get(1).id(), queued.get(2).id())).as("one file stored, not three").isEqualTo(1);
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_ATTACHMENT WHERE MAIL_ID = ?", first)).isEqualTo(1);
        assertThat(db.number("SELECT ATTACHMENT_COUNT FROM MAIL_MESSAGE WHERE ID = ?", queued.get(2).id()))
                .as("each copy still knows it has one").isEqualTo(1);
    }

    @Test
    void aThousandMailsTakeTheirIdsInWholeBlocksAndEveryOneIsQueued() {
        NewMail[] mails = new NewMail[1000];
        for (int i = 0; i < mails.length; i++) {
            mails[i] = mail("bulk " + i, 4, NOW);
        }
        List<Long> ids = db.inTransaction(() -> cut.enqueue(List.of(new MailGroup(List.of(mails), false, null, null)),
                "host/server")).get(0).stream().map(Enqueued::id).toList();

        assertThat(ids).hasSize(1000).doesNotHaveDuplicates().isSorted();
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_QUEUE")).isEqualTo(1000);
    }

    @Test
    void anIdempotencyKeyOfAPerRecipientEnqueueFindsEveryCopyWithItsStatus() {
        MailGroup keyed = new MailGroup(List.of(mail("copy a", 4, NOW), mail("copy b", 4, NOW)), true, "user\tkey-2",
                "ef".repeat(32));
        List<Enqueued> queued = db.inTransaction(() -> cut.enqueue(List.of(keyed), "host/server")).get(0);
        db.update("DELETE FROM MAIL_QUEUE WHERE MAIL_ID = ?", queued.get(1).id());
        db.update("INSERT INTO MAIL_ATTEMPT (ID, MAIL_ID, STARTED_AT, FINISHED_AT, SERVER_INSTANCE, LEASE_OWNER, OUTCOME,"
                + " MAIL_STATUS) VALUES (" + AttemptLog.nextId(dev.mailqueue.schema.control.DatabaseKind.valueOf(
                QueueDatabase.KIND.toUpperCase(java.util.Locale.ROOT))) + ", ?, ?, ?, 'host/server', 'test', 'SENT', 'SENT')",
                queued.get(1).id(), java.sql.Timestamp.from(NOW), java.sql.Timestamp.from(NOW));

        EnqueueStore.EarlierEnqueue earlier = cut.findByIdempotencyKey("user\tkey-2").orElseThrow();

        assertThat(earlier.first()).isEqualTo(queued.get(0));
        assertThat(earlier.status()).isEqualTo(dev.mailqueue.api.MailStatus.QUEUED);
        assertThat(earlier.copies()).extracting(EnqueueStore.Copy::mail).containsExactlyElementsOf(queued);
        assertThat(earlier.copies()).extracting(EnqueueStore.Copy::status)
                .containsExactly(dev.mailqueue.api.MailStatus.QUEUED, dev.mailqueue.api.MailStatus.SENT);
    }

    @Test
    void anIdempotencyKeyFindsItsMailWithTheRequestsDigestAndCannotBeStoredTwice() {
        MailGroup keyed = new MailGroup(List.of(mail("keyed", 4, NOW)), false, "user\tkey-1", "ab".repeat(32));
        Enqueued queued = db.inTransaction(() -> cut.enqueue(List.of(keyed), "host/server")).get(0).get(0);

        EnqueueStore.EarlierEnqueue earlier = cut.findByIdempotencyKey("user\tkey-1").orElseThrow();
        assertThat(earlier.first()).isEqualTo(queued);
        assertThat(earlier.fingerprint()).isEqualTo("ab".repeat(32));
        assertThat(earlier.status()).isEqualTo(dev.mailqueue.api.MailStatus.QUEUED);
        assertThat(earlier.copies()).isEmpty();
        assertThat(cut.findByIdempotencyKey("other\tkey-1")).isEmpty();

        MailGroup again = new MailGroup(List.of(mail("keyed again", 4, NOW)), false, "user\tkey-1", "cd".repeat(32));
        assertThatThrownBy(() -> db.inTransaction(() -> cut.enqueue(List.of(again), "host/server")))
                .isInstanceOf(StoreException.class)
                .satisfies(e -> assertThat(EnqueueStore.isUniqueViolation(e)).isTrue());
    }
}
