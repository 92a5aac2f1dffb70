package dev.mailqueue.mail.control;

import dev.mailqueue.api.AttemptView;
import dev.mailqueue.api.MailDetail;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.api.MailView;
import dev.mailqueue.api.RecipientOutcome;
import dev.mailqueue.api.RecipientView;
import dev.mailqueue.queue.entity.AttemptOutcome;
import dev.mailqueue.queue.entity.MailAttempt;
import dev.mailqueue.queue.entity.RecipientStatus;
import dev.mailqueue.settings.control.InDoubtPolicy;
import dev.mailqueue.queue.control.NewMail;
import dev.mailqueue.queue.control.RecipientResult;
import dev.mailqueue.queue.control.Verdict;
import dev.mailqueue.testsupport.MailStates;
import dev.mailqueue.testsupport.QueueDatabase;
import dev.mailqueue.testsupport.TestMails;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

import static dev.mailqueue.testsupport.TestMails.mail;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * One mail as the views show it, read through the real persistence unit on the real schema: its content from
 * MAIL_MESSAGE, where it stands from the view MAIL_STATE (queue row, claimer, latest status of its log), its
 * attempt log (the log's attempts and reports, not its status changes) and each recipient's latest result. The
 * mails get their history through the stores.
 */
@Tag("database")
class MailViewsTest {

    @RegisterExtension
    static final QueueDatabase db = QueueDatabase.perTestClass();

    MailStates mails = new MailStates(db);

    static Instant at(String hhmmss) {
        return Instant.parse("2030-03-14T" + hhmmss + "Z");
    }

    <T> T views(Function<MailViews, T> read) {
        return db.jpa(em -> {
            MailViews cut = new MailViews();
            cut.em = em;
            return read.apply(cut);
        });
    }

    MailView full(long id) {
        return views(v -> v.full(id)).orElseThrow();
    }

    @Test
    void aQueuedMailShowsItsQueueRow() {
        NewMail queued = TestMails.attempts(TestMails.due(mail("later", 7, at("09:00:00")), at("10:00:00")), 3,
                at("12:00:00"));
        long id = mails.enqueue(queued);

        MailView view = full(id);

        assertThat(view.getStatus()).isEqualTo(MailStatus.QUEUED);
        assertThat(view.getPriority()).isEqualTo(7);
        assertThat(view.getSubject()).isEqualTo("later");
        assertThat(view.getCreatedAt()).isEqualTo(at("09:00:00"));
        assertThat(view.getNotBefore()).isEqualTo(at("10:00:00"));
        assertThat(view.getAttemptsRemaining()).isEqualTo(3);
        assertThat(view.getExpiresAt()).isEqualTo(at("12:00:00"));
        assertThat(view.getAccount()).isEqualTo("mailqueue");
        assertThat(view.getClaimedAt()).isNull();
        assertThat(view.getLastAttemptAt()).isNull();
        assertThat(view.getSentAt()).isNull();
        assertThat(view.getLastError()).isNull();
        assertThat(view.getAttempts()).isEmpty();
        assertThat(view.getRecipients()).isEmpty();
    }

    @Test
    void aDeferredMailShowsItsNextAttemptThenItsClaimerThenWhenItWasSent() {
        long id = mails.enqueue(mail("deferred", 4, at("09:00:00")));
        mails.failed(id, at("09:01:00"), at("09:01:01"), Verdict.TRANSIENT, 451, "try later");

        MailView deferred = full(id);
        assertThat(deferred.getStatus()).isEqualTo(MailStatus.QUEUED);
        assertThat(deferred.getAttemptsRemaining()).isEqualTo(4);
        assertThat(deferred.getNotBefore()).as("5 minutes after the failure").isEqualTo(at("09:06:01"));
        assertThat(deferred.getLastAttemptAt()).isEqualTo(at("09:01:00"));
        assertThat(deferred.getLastError()).isEqualTo("try later");

        MailStates.Claimed claimed = mails.claim(id, at("09:07:00"));
        MailView sending = full(id);
        assertThat(sending.getStatus()).isEqualTo(MailStatus.SENDING);
        assertThat(sending.getClaimedAt()).as("when its claimer started").isEqualTo(at("09:07:00"));

        mails.attempt(claimed, at("09:07:30"), at("09:07:31"), Verdict.SENT, 250, null, List.of(), InDoubtPolicy.RESEND);
        MailView sent = full(id);
        assertThat(sent.getStatus()).isEqualTo(MailStatus.SENT);
        assertThat(sent.getSentAt()).isEqualTo(at("09:07:31"));
        assertThat(sent.getLastAttemptAt()).isEqualTo(at("09:07:30"));
        assertThat(sent.getClaimedAt()).isNull();
        assertThat(sent.getNotBefore()).as("out of the queue: not due").isNull();
        assertThat(sent.getAttemptsRemaining()).as("out of the queue: no count to show").isNull();
        assertThat(sent.getLastError()).isNull();
        assertThat(sent.getAttempts()).extracting(AttemptView::getOutcome, AttemptView::getSmtpReplyCode,
                        AttemptView::getAccount, AttemptView::getServerInstance)
                .containsExactly(tuple("FAILED", 451, "mailqueue", MailStates.SERVER),
                        tuple("SENT", 250, "mailqueue", MailStates.SERVER));
    }

    @Test
    void theAttemptLogShowsAttemptsAndReportsNotTheStatusChangesOfTheLog() {
        NewMail mail = mail("failed, requeued, cancelled, requeued, sent, bounced", 4, at("09:00:00"));
        long id = mails.enqueue(mail);
        mails.failed(id, at("09:01:00"), at("09:01:01"), Verdict.PERMANENT, 550, "no such user");
        mails.requeue(id, at("09:02:00"));
        mails.cancel(id, at("09:03:00"));
        mails.requeue(id, at("09:04:00"));
        mails.sent(id, at("09:05:00"), at("09:05:01"));
        mails.bounce(mail.messageId(), "rcpt@example.com", at("09:30:00"));

        MailView view = full(id);

        assertThat(db.number("SELECT COUNT(*) FROM MAIL_ATTEMPT WHERE MAIL_ID = ?", id)).as("the whole log").isEqualTo(6);
        assertThat(view.getAttempts()).extracting(AttemptView::getOutcome).containsExactly("FAILED", "SENT", "BOUNCED");
        assertThat(view.getStatus()).as("a report changes no status").isEqualTo(MailStatus.SENT);
        assertThat(view.getSentAt()).isEqualTo(at("09:05:01"));
        assertThat(view.getRecipients()).extracting(RecipientView::getAddress, RecipientView::getStatus)
                .containsExactly(tuple("rcpt@example.com", "BOUNCED"));
        List<MailAttempt> shown = db.jpa(em -> em.createNamedQuery(MailAttempt.BY_MAIL, MailAttempt.class)
                .setParameter("mailId", id).getResultList());
        assertThat(shown).extracting(MailAttempt::getOutcome).allMatch(AttemptOutcome.SHOWN::contains).hasSize(3);
    }

    @Test
    void eachRecipientShowsItsLatestResultWhateverTheCaseOfItsAddress() {
        long id = mails.enqueue(TestMails.to(mail("two recipients", 4, at("09:00:00")),
                List.of("ann@example.org", "Bob@Example.org"), List.of(), List.of()));
        mails.attempt(id, at("09:01:00"), at("09:01:01"), Verdict.PERMANENT, 550, "Bob@Example.org refused",
                List.of(new RecipientResult("ann@example.org", RecipientStatus.SENT, 250, "ok", "2.0.0"),
                        new RecipientResult("Bob@Example.org", RecipientStatus.REFUSED, 550, "no such user", "5.1.1")),
                InDoubtPolicy.RESEND);
        assertThat(full(id).getRecipients()).extracting(RecipientView::getAddress, RecipientView::getStatus)
                .containsExactlyInAnyOrder(tuple("ann@example.org", "SENT"), tuple("Bob@Example.org", "REFUSED"));

        mails.requeue(id, at("09:02:00"));
        assertThat(full(id).getRecipients()).extracting(r -> r.getAddress().toLowerCase(), RecipientView::getStatus)
                .as("the refused one is tried again").containsExactlyInAnyOrder(tuple("ann@example.org", "SENT"),
                        tuple("bob@example.org", "DEFERRED"));
        MailDetail detail = views(v -> v.detail(id)).orElseThrow();
        assertThat(detail.getRecipientOutcomes()).extracting(RecipientOutcome::address, RecipientOutcome::status,
                RecipientOutcome::perRecipient).containsExactly(tuple("ann@example.org", "SENT", true),
                tuple("Bob@Example.org", "DEFERRED", true));

        mails.attempt(id, at("09:03:00"), at("09:03:01"), Verdict.SENT, 250, null,
                List.of(new RecipientResult("Bob@Example.org", RecipientStatus.SENT, 250, "ok", "2.0.0")),
                InDoubtPolicy.RESEND);
        MailView sent = full(id);
        assertThat(sent.getStatus()).isEqualTo(MailStatus.SENT);
        assertThat(sent.getRecipients()).extracting(r -> r.getAddress().toLowerCase(), RecipientView::getStatus)
                .containsExactlyInAnyOrder(tuple("ann@example.org", "SENT"), tuple("bob@example.org", "SENT"));
    }

    @Test
    void recipientsWithoutResultsOfTheirOwnShareTheStatusOfTheirMailOnceItIsFinished() {
        long queued = mails.enqueue(mail("queued", 4, at("09:00:00")));
        long held = mails.enqueue(mail("held", 4, at("09:00:00")));
        mails.attempt(held, at("09:01:00"), at("09:01:30"), Verdict.IN_DOUBT, null, "no answer", List.of(),
                InDoubtPolicy.HOLD);
        long failed = mails.enqueue(mail("failed", 4, at("09:02:00")));
        mails.failed(failed, at("09:03:00"), at("09:03:01"), Verdict.PERMANENT, 554, "refused");

        assertThat(List.of(queued, held, failed)).map(id -> views(v -> v.detail(id)).orElseThrow())
                .extracting(MailView::getStatus, d -> d.getRecipientOutcomes().get(0).status(),
                        d -> d.getRecipientOutcomes().get(0).address())
                .containsExactly(tuple(MailStatus.QUEUED, "PENDING", "rcpt@example.com"),
                        tuple(MailStatus.HELD, "PENDING", "rcpt@example.com"),
                        tuple(MailStatus.FAILED, "FAILED", "rcpt@example.com"));
        assertThat(views(v -> v.detail(failed)).orElseThrow().getRecipientOutcomes().get(0))
                .as("the reply of the attempt that failed it").extracting(RecipientOutcome::replyCode,
                        RecipientOutcome::replyText, RecipientOutcome::updatedAt)
                .containsExactly(554, "554 refused", at("09:03:01"));
        assertThat(List.of(queued, held)).map(id -> views(v -> v.detail(id)).orElseThrow().getRecipientOutcomes().get(0))
                .as("no attempt settled them").extracting(RecipientOutcome::replyCode).containsOnlyNulls();
        MailDetail held1 = views(v -> v.detail(held)).orElseThrow();
        assertThat(held1.getFirstAttemptAt()).isEqualTo(at("09:01:00"));
        assertThat(held1.getLastError()).contains("no answer").contains("held for review");
        assertThat(held1.getText()).isEqualTo("text of held");
    }

    @Test
    void aMailSentInOneTransactionShowsEachRecipientTheReplyToItsDataAndNoAttemptsLeft() {
        long id = mails.enqueue(TestMails.to(mail("whole", 4, at("09:00:00")),
                List.of("ann@example.org"), List.of("bob@example.org"), List.of()));
        mails.failed(id, at("09:01:00"), at("09:01:01"), Verdict.TRANSIENT, 451, "try later");
        mails.sent(id, at("09:07:00"), at("09:07:02"));

        MailDetail detail = views(v -> v.detail(id)).orElseThrow();

        assertThat(detail.getAttemptsRemaining()).isNull();
        assertThat(detail.getRecipientOutcomes()).extracting(RecipientOutcome::address, RecipientOutcome::status,
                        RecipientOutcome::perRecipient, RecipientOutcome::replyCode, RecipientOutcome::updatedAt)
                .as("the reply of the attempt that sent it, not of the one before")
                .containsExactly(tuple("ann@example.org", "SENT", false, 250, at("09:07:02")),
                        tuple("bob@example.org", "SENT", false, 250, at("09:07:02")));
    }

    @Test
    void noSuchMailIsEmpty() {
        Optional<MailView> full = views(v -> v.full(404));
        Optional<MailDetail> detail = views(v -> v.detail(404));
        assertThat(full).isEmpty();
        assertThat(detail).isEmpty();
    }

    @Test
    void aSendersOwnListUnsubscribeIsShownAndTheQueuesOfAListMailIsNot() {
        List<NewMail.Header> fields = List.of(new NewMail.Header("List-Unsubscribe", "<mailto:off@shop.example>"),
                new NewMail.Header("X-Campaign", "spring"));
        long own = mails.enqueue(TestMails.content(mail("own", 4, at("09:00:00")), "x", null, List.of(), fields));
        // a list mail queued by an earlier version, which stored the signed link it made
        long listed = mails.enqueue(TestMails.inList(TestMails.content(mail("listed", 4, at("09:00:00")), "x", null,
                List.of(), fields), "weekly-news"));

        assertThat(full(own).getHeaders()).containsOnlyKeys("List-Unsubscribe", "X-Campaign");
        assertThat(full(listed).getHeaders()).containsOnlyKeys("X-Campaign");
    }
}
