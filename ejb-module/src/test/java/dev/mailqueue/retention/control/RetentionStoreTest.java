package dev.mailqueue.retention.control;

import dev.mailqueue.api.MailStatus;
import dev.mailqueue.dispatch.control.QueueDatabase;
import dev.mailqueue.dispatch.control.Rows;
import dev.mailqueue.mail.control.MailParts;
import dev.mailqueue.mail.entity.AttemptOutcome;
import dev.mailqueue.mail.entity.MailAttachment;
import dev.mailqueue.mail.entity.MailAttempt;
import dev.mailqueue.mail.entity.MailHeader;
import dev.mailqueue.mail.entity.MailMessage;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the retention job reads and deletes, on the real schema, EclipseLink and Derby: mails in a
 * final state all of whose times lie before the cutoff, and nothing else; deleted with their attempts,
 * attachments and headers; a mail requeued between read and delete stays.
 */
class RetentionStoreTest {

    static final LocalDateTime NOW = LocalDateTime.of(2030, 3, 14, 9, 26, 53);
    static final LocalDateTime CUTOFF = RetentionPolicy.cutoff(NOW, 15);
    static final LocalDateTime OLD = CUTOFF.minusSeconds(1);

    @RegisterExtension
    static final QueueDatabase db = QueueDatabase.perTestClass();
    RetentionStore cut;

    @BeforeEach
    void newCut() {
        cut = new RetentionStore();
    }

    @Test
    void theCutoffIsTheGivenNumberOfDaysBeforeNow() {
        assertThat(CUTOFF).isEqualTo(LocalDateTime.of(2030, 2, 27, 9, 26, 53));
    }

    @Test
    void finishedMailsWhoseTimesAllLieBeforeTheCutoffAreDeletableInIdOrder() {
        List<Long> ids = insert(mail(MailStatus.SENT, OLD), mail(MailStatus.FAILED, OLD),
                mail(MailStatus.CANCELLED, OLD.minusDays(300)), mail(MailStatus.EXPIRED, OLD));
        times(ids.get(0), OLD, OLD);
        times(ids.get(1), OLD, null);

        assertThat(deletable(0, 100)).containsExactlyElementsOf(ids);
    }

    @Test
    void liveAndHeldMailsAreNeverDeletableHoweverOld() {
        MailMessage sending = mail(MailStatus.SENDING, OLD.minusDays(100));
        sending.lease("host/server#1", OLD.minusDays(99));
        insert(mail(MailStatus.QUEUED, OLD.minusDays(100)), sending, mail(MailStatus.HELD, OLD.minusDays(100)));

        assertThat(deletable(0, 100)).isEmpty();
    }

    @Test
    void aFinishedMailWithAnyTimeAtOrAfterTheCutoffStays() {
        List<Long> ids = insert(mail(MailStatus.SENT, OLD), mail(MailStatus.FAILED, OLD),
                mail(MailStatus.CANCELLED, OLD), mail(MailStatus.SENT, CUTOFF), mail(MailStatus.SENT, OLD));
        times(ids.get(0), OLD, CUTOFF); // sent just now, after a long wait
        times(ids.get(1), CUTOFF.plusDays(1), null); // last attempt recent
        notBefore(ids.get(2), CUTOFF.plusDays(30)); // was scheduled for later, then cancelled
        // ids.get(3) was created exactly at the cutoff: not before it
        times(ids.get(4), OLD, OLD);

        assertThat(deletable(0, 100)).containsExactly(ids.get(4));
    }

    @Test
    void pagesFollowTheIdsAfterTheLastOneRead() {
        List<Long> ids = insert(mail(MailStatus.SENT, OLD), mail(MailStatus.SENT, OLD), mail(MailStatus.SENT, OLD),
                mail(MailStatus.SENT, OLD), mail(MailStatus.SENT, OLD));

        assertThat(deletable(0, 2)).containsExactly(ids.get(0), ids.get(1));
        assertThat(deletable(ids.get(1), 2)).containsExactly(ids.get(2), ids.get(3));
        assertThat(deletable(ids.get(3), 2)).containsExactly(ids.get(4));
        assertThat(deletable(ids.get(4), 2)).isEmpty();
    }

    @Test
    void deletingAMailTakesItsAttemptsAttachmentsAndHeadersAndLeavesOtherMailsAlone() {
        MailMessage old = withParts(mail(MailStatus.SENT, OLD));
        MailMessage young = withParts(mail(MailStatus.SENT, CUTOFF.plusDays(1)));
        List<Long> ids = insert(old, young);
        db.run(em -> {
            for (long id : ids) {
                em.persist(new MailAttempt(id, OLD, OLD, "host/server", "host/server#1", AttemptOutcome.SENT, 250, "OK", null, null));
            }
        });

        int deleted = db.inTransaction(em -> {
            cut.em = em;
            return cut.delete(List.of(ids.get(0), ids.get(1)), CUTOFF);
        });

        assertThat(deleted).isEqualTo(1);
        assertThat(db.reload(ids.get(0))).isNull();
        assertThat(db.reload(ids.get(1))).isNotNull();
        for (String table : List.of("MAIL_ATTEMPT", "MAIL_ATTACHMENT", "MAIL_HEADER")) {
            assertThat(rows(table, ids.get(0))).as("%s of the deleted mail", table).isZero();
            assertThat(rows(table, ids.get(1))).as("%s of the kept mail", table).isPositive();
        }
    }

    @Test
    void aMailRequeuedBetweenReadAndDeleteStays() {
        List<Long> ids = insert(mail(MailStatus.FAILED, OLD), mail(MailStatus.FAILED, OLD));
        List<Long> read = deletable(0, 100);
        db.run(em -> em.createNativeQuery("UPDATE MAIL_MESSAGE SET STATUS = 'QUEUED' WHERE ID = " + ids.get(1))
                .executeUpdate());

        int deleted = db.inTransaction(em -> {
            cut.em = em;
            return cut.delete(read, CUTOFF);
        });

        assertThat(deleted).isEqualTo(1);
        assertThat(db.reload(ids.get(1)).getStatus()).isEqualTo(MailStatus.QUEUED);
    }

    private static MailMessage mail(MailStatus status, LocalDateTime createdAt) {
        MailMessage mail = Rows.queued(status.name(), createdAt);
        mail.setStatus(status);
        return mail;
    }

    private static MailMessage withParts(MailMessage mail) {
        mail.setAttachments(new ArrayList<>(List.of(new MailAttachment(0, "a.pdf", "application/pdf", new byte[]{1}))));
        mail.setHeaders(new ArrayList<>(List.of(new MailHeader(0, "X-Test", "1"))));
        return mail;
    }

    private static List<Long> insert(MailMessage... mails) {
        db.run(em -> {
            for (MailMessage mail : mails) {
                em.persist(mail);
            }
            MailParts.persist(em, List.of(mails));
        });
        return List.of(mails).stream().map(MailMessage::getId).toList();
    }

    private List<Long> deletable(long afterId, int max) {
        return db.inTransaction(em -> {
            cut.em = em;
            return cut.deletable(CUTOFF, afterId, max);
        });
    }

    private static void times(long id, LocalDateTime lastAttemptAt, LocalDateTime sentAt) {
        set(id, "LAST_ATTEMPT_AT", lastAttemptAt);
        set(id, "SENT_AT", sentAt);
    }

    private static void set(long id, String column, LocalDateTime time) {
        if (time != null) { // a bound null would go as VARCHAR, which PostgreSQL refuses for a timestamp
            db.run(em -> em.createNativeQuery("UPDATE MAIL_MESSAGE SET " + column + " = ? WHERE ID = ?")
                    .setParameter(1, time).setParameter(2, id).executeUpdate());
        }
    }

    private static void notBefore(long id, LocalDateTime notBefore) {
        set(id, "NOT_BEFORE", notBefore);
    }

    private static long rows(String table, long mailId) {
        return db.inTransaction(em -> ((Number) em.createNativeQuery(
                "SELECT COUNT(*) FROM " + table + " WHERE MAIL_ID = " + mailId).getSingleResult()).longValue());
    }
}
