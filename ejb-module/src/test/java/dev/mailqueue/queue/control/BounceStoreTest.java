package dev.mailqueue.queue.control;

import dev.mailqueue.settings.control.SoftBounceRule;
import dev.mailqueue.settings.control.InDoubtPolicy;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.address.control.VerpToken;
import dev.mailqueue.queue.entity.RecipientStatus;
import dev.mailqueue.testsupport.QueueDatabase;
import dev.mailqueue.testsupport.TestMails;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

import static dev.mailqueue.testsupport.TestMails.mail;
import static dev.mailqueue.testsupport.TestMails.to;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Recording reports from the bounce mailbox and the suppression list they feed, on the real schema and
 * database: a hard bounce marks the recipient and suppresses the address, a report is recorded once,
 * a report about an address the mail never had acts on nobody, and the next enqueue to a suppressed
 * address leaves it out (or the whole mail, when it has no one else).
 */
@Tag("database")
class BounceStoreTest {

    static final Instant NOW = Instant.parse("2030-03-14T09:26:53Z");

    @RegisterExtension
    static final QueueDatabase db = QueueDatabase.perTestClass();

    BounceStore cut;
    SuppressionStore suppressions;
    EnqueueStore enqueuer;

    @BeforeEach
    void stores() {
        suppressions = SuppressionStore.on(db.tables());
        cut = BounceStore.on(db.tables(), suppressions);
        enqueuer = db.enqueueStore();
    }

    Enqueued enqueue(List<String> recipients) {
        return db.inTransaction(() -> enqueuer.enqueue(List.of(new MailGroup(List.of(
                to(mail("news", 4, NOW), recipients, List.of(), List.of())), false, null, null)), "host/server")).get(0).get(0);
    }

    String messageId(long id) {
        return db.text("SELECT MESSAGE_ID FROM MAIL_MESSAGE WHERE ID = ?", id);
    }

    static BounceReport failed(String key, String messageId, String address, String status) {
        return new BounceReport(key, BounceReport.Kind.FAILED, messageId, List.of(new BounceReport.Recipient(address,
                address, BounceReport.Action.FAILED, status, "550 5.1.1 <" + address + ">: no such user")), "test");
    }

    @Test
    void aHardBounceMarksTheRecipientLogsTheReportAndSuppressesTheAddressOnce() {
        Enqueued sent = enqueue(List.of("gone@Example.ORG", "fine@example.org"));
        BounceReport report = failed("<dsn-1@mta.test>", messageId(sent.id()), "gone@example.org", "5.1.1");

        assertThat(db.inTransaction(() -> cut.record(report, "test/server", NOW))).isEqualTo(BounceStore.Recorded.RECORDED);
        assertThat(db.inTransaction(() -> cut.record(report, "test/server", NOW.plusSeconds(60))))
                .as("the same report read again").isEqualTo(BounceStore.Recorded.ALREADY_RECORDED);

        assertThat(db.text("SELECT STATUS FROM MAIL_RECIPIENT WHERE MAIL_ID = ? AND ADDRESS = ?", sent.id(),
                "gone@example.org")).isEqualTo("BOUNCED");
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_RECIPIENT WHERE MAIL_ID = ?", sent.id())).isEqualTo(1);
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_ATTEMPT WHERE MAIL_ID = ? AND OUTCOME = 'BOUNCED'"
                + " AND ENHANCED_STATUS = '5.1.1' AND SMTP_REPLY_CODE = 550", sent.id())).isEqualTo(1);
        assertThat(db.number("SELECT COUNT(*) FROM BOUNCE_REPORT WHERE MAIL_ID = ? AND KIND = 'FAILED'", sent.id())).isEqualTo(1);
        SuppressionStore.Entry entry = suppressions.suppressing("gone@EXAMPLE.org", null);
        assertThat(entry).isNotNull();
        assertThat(entry.reason()).isEqualTo(SuppressionStore.Reason.HARD_BOUNCE);
        assertThat(entry.mailId()).isEqualTo(sent.id());
        assertThat(suppressions.suppressing("fine@example.org", null)).isNull();
    }

    static VerpToken.Named verp(long mailId, Integer recipient) {
        return new VerpToken.Named(mailId, Optional.ofNullable(recipient));
    }

    static BounceReport withVerp(BounceReport report, VerpToken.Named named) {
        return new BounceReport(report.key(), report.kind(), report.originalMessageId(), named, report.recipients(),
                report.summary());
    }

    @Test
    void aVerpTokenNamesTheMailBeforeTheMessageIdAndAMissingMailNamesNothing() {
        Enqueued sent = enqueue(List.of("gone@example.org"));
        Enqueued other = enqueue(List.of("gone@example.org"));
        BounceReport byVerp = withVerp(failed("<verp-1@mta.test>", "<never-issued@example.org>", "gone@example.org",
                "5.1.1"), verp(sent.id(), 0));
        BounceReport goneMail = withVerp(failed("<verp-2@mta.test>", messageId(other.id()), "gone@example.org", "5.1.1"),
                verp(Long.MAX_VALUE, 0));

        db.inTransaction(() -> cut.record(byVerp, "test/server", NOW, SoftBounceRule.NEVER, VERP_EVERYWHERE));
        db.inTransaction(() -> cut.record(goneMail, "test/server", NOW, SoftBounceRule.NEVER, VERP_EVERYWHERE));

        assertThat(db.number("SELECT COUNT(*) FROM BOUNCE_REPORT WHERE MAIL_ID = ?", sent.id())).as("by VERP").isEqualTo(1);
        assertThat(db.text("SELECT STATUS FROM MAIL_RECIPIENT WHERE MAIL_ID = ?", sent.id())).isEqualTo("BOUNCED");
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_RECIPIENT WHERE MAIL_ID = ?", other.id()))
                .as("a token of no mail, and the Message-ID of mail that went out with VERP: nothing").isZero();
    }

    /** Every account sends with VERP: a report must carry a token to act. */
    static final java.util.function.Predicate<String> VERP_EVERYWHERE = account -> true;

    /**
     * The forgery issue 32 names: a recipient writes a DSN or a complaint about a co-recipient. With per-recipient
     * VERP the token names the forger, whatever the report lists; by Message-ID alone it names no one.
     */
    @Test
    void aRecipientCanReportOnlyThemself() {
        Enqueued sent = enqueue(List.of("forger@example.org", "victim@example.org"));
        BounceReport aboutTheVictim = failed("<forged-1@mta.test>", messageId(sent.id()), "victim@example.org", "5.1.1");

        db.inTransaction(() -> cut.record(withVerp(aboutTheVictim, verp(sent.id(), 0)), "test/server", NOW,
                SoftBounceRule.NEVER, VERP_EVERYWHERE));
        db.inTransaction(() -> cut.record(new BounceReport("<forged-2@mta.test>", BounceReport.Kind.FAILED,
                messageId(sent.id()), aboutTheVictim.recipients(), "by Message-ID"), "test/server", NOW,
                SoftBounceRule.NEVER, VERP_EVERYWHERE));
        db.inTransaction(() -> cut.record(withVerp(new BounceReport("<forged-3@fbl.test>", BounceReport.Kind.COMPLAINT,
                messageId(sent.id()), List.of(new BounceReport.Recipient("victim@example.org", "victim@example.org",
                BounceReport.Action.COMPLAINED, null, "Feedback-Type: abuse")), "test"), verp(sent.id(), null)),
                "test/server", NOW, SoftBounceRule.NEVER, VERP_EVERYWHERE));

        assertThat(suppressions.suppressing("victim@example.org", null)).as("the co-recipient").isNull();
        assertThat(db.text("SELECT STATUS FROM MAIL_RECIPIENT WHERE MAIL_ID = ? AND ADDRESS = ?", sent.id(),
                "forger@example.org")).as("the forger's own token names the forger").isEqualTo("BOUNCED");
        assertThat(suppressions.suppressing("forger@example.org", null).reason()).isEqualTo(SuppressionStore.Reason.HARD_BOUNCE);
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_RECIPIENT WHERE MAIL_ID = ? AND ADDRESS = 'victim@example.org'",
                sent.id())).isZero();
    }

    @Test
    void aDsnListingInventedRecipientsWritesNoRowForThem() {
        Enqueued sent = enqueue(List.of("pat@example.org"));
        List<BounceReport.Recipient> blocks = new java.util.ArrayList<>();
        for (int i = 0; i < 100; i++) {
            blocks.add(new BounceReport.Recipient("made-up-" + i + "@example.org", "made-up-" + i + "@example.org",
                    BounceReport.Action.FAILED, "5.1.1", null));
        }
        blocks.add(new BounceReport.Recipient("pat@example.org", "pat@example.org", BounceReport.Action.FAILED, "5.1.1", null));
        blocks.add(new BounceReport.Recipient("PAT@example.org", "pat@example.org", BounceReport.Action.FAILED, "5.1.1", null));

        db.inTransaction(() -> cut.record(new BounceReport("<many@mta.test>", BounceReport.Kind.FAILED, messageId(sent.id()),
                blocks, "test"), "test/server", NOW));

        assertThat(db.number("SELECT COUNT(*) FROM MAIL_ATTEMPT WHERE MAIL_ID = ? AND OUTCOME = 'BOUNCED'", sent.id()))
                .as("one row for the one recipient the mail had, however many the report lists").isEqualTo(1);
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_ATTEMPT WHERE MAIL_ID = ? AND EVENT_TYPE IS NOT NULL", sent.id())).isEqualTo(1);
    }

    @Test
    void anUnrecordableReportIsRecordedAsUnrecognisedOnce() {
        assertThat(db.inTransaction(() -> cut.recordUnrecognised("<poison@mta.test>", NOW))).isEqualTo(BounceStore.Recorded.RECORDED);
        assertThat(db.inTransaction(() -> cut.recordUnrecognised("<poison@mta.test>", NOW)))
                .isEqualTo(BounceStore.Recorded.ALREADY_RECORDED);
        assertThat(db.text("SELECT KIND FROM BOUNCE_REPORT WHERE REPORT_KEY = '<poison@mta.test>'")).isEqualTo("UNRECOGNISED");
    }

    static final java.util.function.Predicate<String> NO_VERP = account -> false;

    @Test
    void aSoftFailureAndADelayDoNotSuppress() {
        Enqueued sent = enqueue(List.of("full@example.org"));
        db.inTransaction(() -> cut.record(failed("<dsn-2@mta.test>", messageId(sent.id()), "full@example.org", "4.2.2"),
                "test/server", NOW));
        db.inTransaction(() -> cut.record(new BounceReport("<dsn-3@mta.test>", BounceReport.Kind.DELAYED,
                messageId(sent.id()), List.of(new BounceReport.Recipient("full@example.org", "full@example.org",
                BounceReport.Action.DELAYED, "4.4.1", null)), "test"), "test/server", NOW));

        assertThat(db.number("SELECT COUNT(*) FROM MAIL_ATTEMPT WHERE MAIL_ID = ? AND OUTCOME = 'DELAYED'", sent.id())).isEqualTo(1);
        assertThat(suppressions.suppressing("full@example.org", null)).isNull();
    }

    @Test
    void softBouncesSuppressOnlyWhenEnoughFallWithinTheWindow() {
        SoftBounceRule twoInAWeek = new SoftBounceRule(2, java.time.Duration.ofDays(7));
        Enqueued old = enqueue(List.of("full@example.org"));
        db.inTransaction(() -> cut.record(failed("<soft-1@mta.test>", messageId(old.id()), "full@example.org", "4.2.2"),
                "test/server", NOW.minus(java.time.Duration.ofDays(10)), twoInAWeek, NO_VERP));
        Enqueued recent = enqueue(List.of("full@example.org"));
        db.inTransaction(() -> cut.record(failed("<soft-2@mta.test>", messageId(recent.id()), "full@example.org", "4.2.2"),
                "test/server", NOW, twoInAWeek, NO_VERP));
        assertThat(suppressions.suppressing("full@example.org", null)).as("the first bounce was 10 days ago").isNull();

        Enqueued next = enqueue(List.of("full@example.org"));
        db.inTransaction(() -> cut.record(failed("<soft-3@mta.test>", messageId(next.id()), "full@example.org", "4.4.7"),
                "test/server", NOW.plusSeconds(3600), twoInAWeek, NO_VERP));
        SuppressionStore.Entry entry = suppressions.suppressing("full@example.org", null);
        assertThat(entry).isNotNull();
        assertThat(entry.reason()).isEqualTo(SuppressionStore.Reason.SOFT_BOUNCE);
        assertThat(entry.detail()).startsWith("2 soft bounces within 7 days");
    }

    @Test
    void aReportAboutAnAddressTheMailNeverHadActsOnNobody() {
        Enqueued sent = enqueue(List.of("pat@example.org"));

        db.inTransaction(() -> cut.record(failed("<dsn-4@mta.test>", messageId(sent.id()), "ceo@example.org", "5.1.1"),
                "test/server", NOW));
        db.inTransaction(() -> cut.record(failed("<dsn-5@mta.test>", "<unknown@elsewhere>", "pat@example.org", "5.1.1"),
                "test/server", NOW));

        assertThat(suppressions.suppressing("ceo@example.org", null)).isNull();
        assertThat(suppressions.suppressing("pat@example.org", null)).isNull();
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_RECIPIENT WHERE MAIL_ID = ?", sent.id())).isZero();
        assertThat(db.number("SELECT COUNT(*) FROM BOUNCE_REPORT")).as("both recorded, so not read again").isEqualTo(2);
    }

    @Test
    void aComplaintSuppressesTheAddress() {
        Enqueued sent = enqueue(List.of("reader@example.org"));
        db.inTransaction(() -> cut.record(new BounceReport("<arf-1@fbl.test>", BounceReport.Kind.COMPLAINT,
                messageId(sent.id()), List.of(new BounceReport.Recipient("reader@example.org", "reader@example.org",
                BounceReport.Action.COMPLAINED, null, "Feedback-Type: abuse")), "test"), "test/server", NOW));

        assertThat(db.text("SELECT STATUS FROM MAIL_RECIPIENT WHERE MAIL_ID = ?", sent.id())).isEqualTo("COMPLAINED");
        assertThat(suppressions.suppressing("reader@example.org", null).reason()).isEqualTo(SuppressionStore.Reason.COMPLAINT);
    }

    @Test
    void theNextEnqueueLeavesSuppressedRecipientsOutAndAMailWithNoOneElseIsSuppressed() {
        suppressions.add("Gone@Example.org", Suppressed.ALL, SuppressionStore.Reason.MANUAL, "test", NOW);

        Enqueued mixed = enqueue(List.of("Gone@EXAMPLE.ORG", "fine@example.org"));
        Enqueued only = enqueue(List.of("Gone@example.org"));
        Enqueued other = enqueue(List.of("gone@example.org"));

        assertThat(mixed.status()).isEqualTo(MailStatus.QUEUED);
        assertThat(mixed.suppressed()).containsExactly("Gone@EXAMPLE.ORG");
        assertThat(db.text("SELECT STATUS FROM MAIL_RECIPIENT WHERE MAIL_ID = ?", mixed.id())).isEqualTo("SUPPRESSED");
        assertThat(only.status()).isEqualTo(MailStatus.SUPPRESSED);
        assertThat(db.text("SELECT STATUS FROM MAIL_STATE WHERE MAIL_ID = ?", only.id())).isEqualTo("SUPPRESSED");
        assertThat(other.status()).as("the local part is compared as written (RFC 5321 §2.4)").isEqualTo(MailStatus.QUEUED);

        Lease lease = db.inTransaction(() -> db.claimStore().start("test/server#1", NOW, NOW.plusSeconds(60)));
        ClaimStore.Claim claim = db.inTransaction(() -> db.claimStore().claim(lease, 1, "test/server", NOW, NOW.plusSeconds(60), 10,
                InDoubtPolicy.RESEND, TestMails.ACCOUNTS, false));
        assertThat(claim.mails()).extracting(ClaimedMail::id).containsExactlyInAnyOrder(mixed.id(), other.id());
        ClaimedMail claimed = claim.mails().stream().filter(m -> m.id() == mixed.id()).findFirst().orElseThrow();
        assertThat(claimed.settled()).as("the dispatcher never sends to a suppressed recipient")
                .containsEntry("gone@example.org", RecipientStatus.SUPPRESSED).doesNotContainKey("fine@example.org");
    }

    @Test
    void anOperatorLiftsASuppression() {
        suppressions.add("pat@example.org", Suppressed.ALL, SuppressionStore.Reason.MANUAL, "asked", NOW);
        assertThat(suppressions.list("PAT@", null, 0, 10)).extracting(SuppressionStore.Entry::address)
                .containsExactly("pat@example.org");

        assertThat(suppressions.remove("pat@EXAMPLE.org", Suppressed.ALL)).isTrue();
        assertThat(suppressions.remove("pat@example.org", Suppressed.ALL)).isFalse();
        assertThat(enqueue(List.of("pat@example.org")).suppressed()).isEmpty();
    }
}
