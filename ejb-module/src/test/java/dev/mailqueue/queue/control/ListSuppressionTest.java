package dev.mailqueue.queue.control;

import dev.mailqueue.settings.control.InDoubtPolicy;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.queue.entity.RecipientStatus;
import dev.mailqueue.testsupport.TestMails;
import dev.mailqueue.testsupport.QueueDatabase;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Instant;
import java.util.List;

import static dev.mailqueue.testsupport.TestMails.inList;
import static dev.mailqueue.testsupport.TestMails.mail;
import static dev.mailqueue.testsupport.TestMails.to;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

/**
 * An unsubscribe from one list, on the real schema and database: the address is suppressed for the mails
 * of that list only, while an entry for all mail still covers every list; and an address that goes on the
 * list while a mail waits in the queue is left out when the mail is claimed.
 */
@Tag("database")
class ListSuppressionTest {

    static final Instant NOW = Instant.parse("2030-03-14T09:26:53Z");

    @RegisterExtension
    static final QueueDatabase db = QueueDatabase.perTestClass();

    SuppressionStore suppressions;
    EnqueueStore enqueuer;

    @BeforeEach
    void stores() {
        suppressions = SuppressionStore.on(db.tables());
        enqueuer = db.enqueueStore();
    }

    Enqueued enqueue(String list, String... recipients) {
        NewMail mail = to(mail("issue 7", 4, NOW), List.of(recipients), List.of(), List.of());
        NewMail queued = list == null ? mail : inList(mail, list);
        return db.inTransaction(() -> enqueuer.enqueue(List.of(new MailGroup(List.of(queued), false, null, null)),
                "host/server")).get(0).get(0);
    }

    @Test
    void anUnsubscribeFromOneListSuppressesOnlyThatListsMail() {
        suppressions.add("reader@Example.ORG", "news", SuppressionStore.Reason.UNSUBSCRIBE, "one-click", NOW);

        Enqueued news = enqueue("news", "reader@example.org");
        assertThat(news.status()).isEqualTo(MailStatus.SUPPRESSED);
        assertThat(news.suppressed()).containsExactly("reader@example.org");
        assertThat(db.text("SELECT STATUS FROM MAIL_STATE WHERE MAIL_ID = ?", news.id())).isEqualTo("SUPPRESSED");
        assertThat(db.text("SELECT STATUS FROM MAIL_RECIPIENT WHERE MAIL_ID = ?", news.id())).isEqualTo("SUPPRESSED");
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_QUEUE WHERE MAIL_ID = ?", news.id())).as("never queued").isZero();
        assertThat(db.text("SELECT OUTCOME FROM MAIL_ATTEMPT WHERE MAIL_ID = ?", news.id())).isEqualTo("SUPPRESSED");

        Enqueued offers = enqueue("offers", "reader@example.org");
        assertThat(offers.status()).as("another list").isEqualTo(MailStatus.QUEUED);
        assertThat(offers.suppressed()).isEmpty();

        Enqueued invoice = enqueue(null, "reader@EXAMPLE.org");
        assertThat(invoice.status()).as("mail of no list").isEqualTo(MailStatus.QUEUED);
    }

    @Test
    void aMailOfAListToSeveralRecipientsLeavesOutOnlyTheUnsubscribedOne() {
        suppressions.add("left@example.org", "digest", SuppressionStore.Reason.UNSUBSCRIBE, null, NOW);

        Enqueued digest = enqueue("digest", "left@example.org", "stays@example.org");

        assertThat(digest.status()).isEqualTo(MailStatus.QUEUED);
        assertThat(digest.suppressed()).containsExactly("left@example.org");
        assertThat(db.number("SELECT SETTLED FROM MAIL_QUEUE WHERE MAIL_ID = ?", digest.id())).as("read at the claim")
                .isEqualTo(1);
        assertThat(db.text("SELECT MAIL_STATUS FROM MAIL_ATTEMPT WHERE MAIL_ID = ?", digest.id())).as("still queued").isNull();
    }

    @Test
    void anEntryForAllMailCoversEveryList() {
        suppressions.add("gone@example.org", Suppressed.ALL, SuppressionStore.Reason.HARD_BOUNCE, "5.1.1", NOW);

        assertThat(enqueue("news", "gone@example.org").status()).isEqualTo(MailStatus.SUPPRESSED);
        assertThat(enqueue(null, "gone@example.org").status()).isEqualTo(MailStatus.SUPPRESSED);
    }

    @Test
    void liftingTheListsEntrySendsAgain() {
        suppressions.add("back@example.org", "news", SuppressionStore.Reason.UNSUBSCRIBE, null, NOW);
        assertThat(suppressions.remove("back@example.org", "news")).isTrue();

        assertThat(enqueue("news", "back@example.org").status()).isEqualTo(MailStatus.QUEUED);
    }

    ClaimStore.Claim claim() {
        ClaimStore claims = db.claimStore();
        Lease lease = db.inTransaction(() -> claims.start("host/server#1", NOW, NOW.plusSeconds(60)));
        return db.inTransaction(() -> claims.claim(lease, 1, "host/server", NOW, NOW.plusSeconds(60), 10, InDoubtPolicy.RESEND,
                TestMails.ACCOUNTS, false));
    }

    @Test
    void anUnsubscribeWhileTheMailWaitsLeavesTheAddressOutWhenItIsClaimed() {
        Enqueued waiting = enqueue("news", "late@example.org", "stays@example.org");
        Enqueued alone = enqueue("news", "alone@example.org");
        Enqueued otherList = enqueue("offers", "late@example.org");
        suppressions.add("late@example.org", "news", SuppressionStore.Reason.UNSUBSCRIBE, null, NOW);
        suppressions.add("alone@example.org", Suppressed.ALL, SuppressionStore.Reason.HARD_BOUNCE, "5.1.1", NOW);

        ClaimStore.Claim claim = claim();

        assertThat(claim.mails()).extracting(ClaimedMail::id).as("the mail with no one left is not handed out")
                .containsExactlyInAnyOrder(waiting.id(), otherList.id());
        ClaimedMail claimed = claim.mails().stream().filter(m -> m.id() == waiting.id()).findFirst().orElseThrow();
        assertThat(claimed.settled()).containsExactly(entry("late@example.org", RecipientStatus.SUPPRESSED));
        ClaimedMail offers = claim.mails().stream().filter(m -> m.id() == otherList.id()).findFirst().orElseThrow();
        assertThat(offers.settled()).as("another list").isEmpty();
        assertThat(db.text("SELECT STATUS FROM MAIL_RECIPIENT WHERE MAIL_ID = ? AND ADDRESS = ?", waiting.id(),
                "late@example.org")).isEqualTo("SUPPRESSED");
        assertThat(db.number("SELECT SETTLED FROM MAIL_QUEUE WHERE MAIL_ID = ?", waiting.id())).isEqualTo(1);
        assertThat(db.text("SELECT STATUS FROM MAIL_STATE WHERE MAIL_ID = ?", alone.id())).isEqualTo("SUPPRESSED");
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_QUEUE WHERE MAIL_ID = ?", alone.id())).isZero();
        assertThat(db.text("SELECT STATUS FROM MAIL_RECIPIENT WHERE MAIL_ID = ?", alone.id())).isEqualTo("SUPPRESSED");
    }
}
