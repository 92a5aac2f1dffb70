package dev.mailqueue.queue.control;

import dev.mailqueue.api.MailStatus;
import dev.mailqueue.testsupport.QueueDatabase;
import dev.mailqueue.testsupport.TestMails;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static dev.mailqueue.testsupport.TestMails.mail;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A campaign's counts and its cancel on the real schema: by the campaign's own mails only, whatever else the
 * database holds, across more mails than one read of their state takes ({@link Sql#IN_LIST}).
 */
@Tag("database")
class CampaignStoreTest {

    static final Instant NOW = Instant.parse("2030-03-14T09:26:53Z");

    @RegisterExtension
    static final QueueDatabase db = QueueDatabase.perTestClass();

    List<Long> enqueue(String campaign, int count) {
        List<NewMail> mails = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            NewMail m = mail(campaign + " " + i, 4, NOW);
            mails.add(campaign == null ? m : TestMails.inCampaign(m, campaign, null, List.of()));
        }
        return db.inTransaction(() -> db.enqueueStore().enqueue(TestMails.groups(mails.toArray(NewMail[]::new)), "host/server"))
                .stream().map(g -> g.get(0).id()).toList();
    }

    /** Ends the mail SENT, as a claimer's outcome would. */
    void sent(long id) {
        db.update("DELETE FROM MAIL_QUEUE WHERE MAIL_ID = ?", id);
        db.update("INSERT INTO MAIL_ATTEMPT (ID, MAIL_ID, STARTED_AT, FINISHED_AT, SERVER_INSTANCE, LEASE_OWNER, OUTCOME,"
                + " MAIL_STATUS) VALUES (" + AttemptLog.nextId(dev.mailqueue.schema.control.DatabaseKind.valueOf(
                QueueDatabase.KIND.toUpperCase(java.util.Locale.ROOT))) + ", ?, ?, ?, 'host/server', 'test', 'SENT', 'SENT')",
                id, java.sql.Timestamp.from(NOW), java.sql.Timestamp.from(NOW));
    }

    @Test
    void countsAndCancelTakeTheCampaignsOwnMailsOnly() {
        CampaignStore cut = CampaignStore.on(db.tables(), db.operatorStore());
        List<Long> spring = enqueue("spring", Sql.IN_LIST + 7);
        List<Long> autumn = enqueue("autumn", 3);
        List<Long> none = enqueue(null, 5);
        spring.subList(0, 4).forEach(this::sent);
        none.forEach(this::sent);

        assertThat(cut.counts("spring")).isEqualTo(Map.of(MailStatus.SENT, 4L,
                MailStatus.QUEUED, (long) Sql.IN_LIST + 3));
        assertThat(db.inTransaction(() -> cut.cancel("spring", "host/server", "test"))).isEqualTo(Sql.IN_LIST + 3);

        assertThat(cut.counts("spring")).isEqualTo(Map.of(MailStatus.SENT, 4L,
                MailStatus.CANCELLED, (long) Sql.IN_LIST + 3));
        assertThat(cut.counts("autumn")).isEqualTo(Map.of(MailStatus.QUEUED, 3L));
        assertThat(cut.counts("winter")).isEmpty();
        assertThat(autumn).hasSize(3);
    }
}
