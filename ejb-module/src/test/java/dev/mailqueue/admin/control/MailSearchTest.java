package dev.mailqueue.admin.control;

import dev.mailqueue.api.InvalidFilterException;
import dev.mailqueue.api.MailFilter;
import dev.mailqueue.api.MailPage;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.api.MailView;
import dev.mailqueue.queue.control.NewMail;
import dev.mailqueue.queue.control.Verdict;
import dev.mailqueue.testsupport.MailStates;
import dev.mailqueue.testsupport.QueueDatabase;
import dev.mailqueue.testsupport.TestMails;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Instant;
import java.util.List;

import static dev.mailqueue.testsupport.TestMails.mail;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The operator's search through the real persistence unit on the real schema: a page of mails in the summary
 * shape, with where each stands (the view MAIL_STATE); criteria on the state (status, error text) and on the log
 * (bounced), sorting by the state's times, and the count of all that match. The mails get their history through
 * the stores.
 */
@Tag("database")
class MailSearchTest {

    @RegisterExtension
    static final QueueDatabase db = QueueDatabase.perTestClass();

    MailStates mails = new MailStates(db);

    long queued;
    long deferred;
    long sending;
    long sentEarly;
    long sentLate;
    long failed;
    long bounced;

    static Instant at(String hhmmss) {
        return Instant.parse("2030-03-14T" + hhmmss + "Z");
    }

    long enqueue(String subject, String created) {
        return mails.enqueue(mail(subject, 4, at(created)));
    }

    @BeforeEach
    void mailsOfEveryKind() {
        queued = mails.enqueue(TestMails.attempts(TestMails.due(mail("queued for 10:00", 4, at("09:00:00")),
                at("10:00:00")), 3, at("11:00:00")));
        deferred = enqueue("deferred", "09:01:00");
        sending = enqueue("being sent", "09:02:00");
        sentEarly = enqueue("sent 09:10", "09:03:00");
        sentLate = enqueue("sent 09:20", "09:04:00");
        failed = enqueue("failed", "09:05:00");
        NewMail bouncing = TestMails.to(mail("sent, then bounced", 4, at("09:06:00")), List.of("gone@example.com"),
                List.of(), List.of()); // its own recipient: the bounce suppresses it
        bounced = mails.enqueue(bouncing);
        mails.failed(deferred, at("09:07:00"), at("09:07:01"), Verdict.TRANSIENT, 451, "greylisted, try later");
        mails.failed(failed, at("09:08:00"), at("09:08:01"), Verdict.PERMANENT, 550, "no such user");
        mails.sent(sentEarly, at("09:10:00"), at("09:10:01"));
        mails.sent(bounced, at("09:11:00"), at("09:11:01"));
        mails.bounce(bouncing.messageId(), "gone@example.com", at("09:15:00"));
        mails.sent(sentLate, at("09:20:00"), at("09:20:01"));
        mails.claim(sending, at("09:21:00"));
    }

    MailPage search(MailFilter filter, int page, int size, String sort) {
        return db.jpa(em -> {
            try {
                return MailSearch.page(em, filter, page, size, sort, 0);
            } catch (InvalidFilterException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    static List<Long> ids(MailPage page) {
        return page.getMails().stream().map(MailView::getId).toList();
    }

    @Test
    void aPageShowsWhereEachMailStandsNewestFirstAndCountsAll() {
        MailPage first = search(new MailFilter(), 0, 3, null);

        assertThat(first.getTotal()).isEqualTo(7);
        assertThat(ids(first)).containsExactly(bounced, failed, sentLate);
        MailPage all = search(new MailFilter(), 0, 50, null);
        assertThat(all.getMails()).extracting(MailView::getId, MailView::getStatus).containsExactly(
                tuple(bounced, MailStatus.SENT), tuple(failed, MailStatus.FAILED), tuple(sentLate, MailStatus.SENT),
                tuple(sentEarly, MailStatus.SENT), tuple(sending, MailStatus.SENDING),
                tuple(deferred, MailStatus.QUEUED), tuple(queued, MailStatus.QUEUED));
        MailView waiting = all.getMails().get(6);
        assertThat(waiting.getNotBefore()).isEqualTo(at("10:00:00"));
        assertThat(waiting.getAttemptsRemaining()).isEqualTo(3);
        assertThat(waiting.getExpiresAt()).isEqualTo(at("11:00:00"));
        assertThat(waiting.getSubject()).isEqualTo("queued for 10:00");
        assertThat(waiting.getAttempts()).as("no attempt log in a summary").isEmpty();
        MailView again = all.getMails().get(5);
        assertThat(again.getLastError()).isEqualTo("greylisted, try later");
        assertThat(again.getLastAttemptAt()).isEqualTo(at("09:07:00"));
        assertThat(again.getAttemptsRemaining()).isEqualTo(4);
        assertThat(all.getMails().get(4).getClaimedAt()).isEqualTo(at("09:21:00"));
        MailView sent = all.getMails().get(3);
        assertThat(sent.getSentAt()).isEqualTo(at("09:10:01"));
        assertThat(sent.getNotBefore()).isNull();
        assertThat(sent.getAttemptsRemaining()).as("out of the queue").isNull();
    }

    /**
     * The last page the admin API lets a caller ask for (page 4,294,967 of 500: an offset of 2,147,483,500, just under
     * 2^31) is an empty page with the full count on every database: each gets its own LIMIT/OFFSET form from
     * EclipseLink (AdminInputIT asks for it over HTTP, on Derby only).
     */
    @Test
    void aPageFarBeyondTheLastIsEmptyAndStillCountsAll() {
        MailPage far = search(new MailFilter(), 4_294_967, 500, null);

        assertThat(far.getMails()).isEmpty();
        assertThat(far.getTotal()).isEqualTo(7);
    }

    /**
     * With no criterion but statuses, the total is the sum of the counts the stores keep (the same cost at any size of
     * history); it is the number of mails the view MAIL_STATE gives those statuses. With any other criterion it
     * counts the matching rows.
     */
    @Test
    void aTotalOfStatusesAloneIsWhatTheViewCountsAndOtherCriteriaCountRows() {
        for (MailStatus status : MailStatus.values()) {
            assertThat(search(new MailFilter().withStatuses(status), 0, 1, null).getTotal()).as(status.name())
                    .isEqualTo(db.number("SELECT COUNT(*) FROM MAIL_STATE WHERE STATUS = ?", status.name()));
        }
        assertThat(search(new MailFilter().withStatuses(MailStatus.QUEUED, MailStatus.SENDING, MailStatus.SENT), 0, 1,
                null).getTotal()).isEqualTo(6);
        assertThat(search(new MailFilter().withErrorText("try later"), 0, 1, null).getTotal()).isEqualTo(1);
        assertThat(search(new MailFilter().withStatuses(MailStatus.SENT).withErrorText("no such"), 0, 1, null)
                .getTotal()).isZero();
    }

    @Test
    void criteriaOnTheStateSelectByTheStatusAndTheErrorOfTheView() {
        assertThat(ids(search(new MailFilter().withStatuses(MailStatus.QUEUED), 0, 50, null)))
                .containsExactly(deferred, queued);
        assertThat(ids(search(new MailFilter().withStatuses(MailStatus.SENDING), 0, 50, null))).containsExactly(sending);
        MailPage finished = search(new MailFilter().withStatuses(MailStatus.FAILED, MailStatus.SENT), 0, 2, null);
        assertThat(finished.getTotal()).isEqualTo(4);
        assertThat(ids(finished)).containsExactly(bounced, failed);
        assertThat(ids(search(new MailFilter().withErrorText("try later"), 0, 50, null))).containsExactly(deferred);
        assertThat(ids(search(new MailFilter().withErrorText("no such").withStatuses(MailStatus.FAILED), 0, 50, null)))
                .containsExactly(failed);
    }

    @Test
    void theBouncedCriterionReadsTheAttemptLog() {
        MailFilter yes = new MailFilter();
        yes.setBounced(true);
        MailFilter no = new MailFilter();
        no.setBounced(false);

        assertThat(ids(search(yes, 0, 50, null))).as("a 5yz answer, or a bounce that came back")
                .containsExactly(bounced, failed);
        assertThat(search(no, 0, 50, null).getTotal()).isEqualTo(5);
    }

    @Test
    void aSearchSortsByTheTimesOfTheStateAndThenById() {
        MailFilter sent = new MailFilter().withStatuses(MailStatus.SENT);
        assertThat(ids(search(sent, 0, 50, "sentAt,desc"))).containsExactly(sentLate, bounced, sentEarly);
        assertThat(ids(search(sent, 0, 50, "sentAt,asc"))).containsExactly(sentEarly, bounced, sentLate);
        assertThat(ids(search(sent, 0, 50, "lastAttemptAt"))).containsExactly(sentEarly, bounced, sentLate);
        assertThat(ids(search(new MailFilter().withStatuses(MailStatus.QUEUED), 0, 50, "notBefore,desc")))
                .containsExactly(queued, deferred);
        assertThat(search(new MailFilter(), 0, 50, "status").getMails()).extracting(MailView::getStatus)
                .isSortedAccordingTo((a, b) -> a.name().compareTo(b.name()));
        assertThatThrownBy(() -> MailSearch.page(null, new MailFilter(), 0, 50, "lastError", 0))
                .isInstanceOf(InvalidFilterException.class);
    }

    /**
     * Sorted by finish time, a search for statuses out of the queue reads its page from the log's status index
     * ({@link FinishedOrder}). Its pages are the ones the view gives: the same search with one more criterion that
     * matches them all (a creation time), which takes the general path through the view, is the control.
     */
    @Test
    void finishedStatusesSortedByFinishTimeArePagedFromTheLogInTheViewsOrder() {
        long failedThenSent = enqueue("failed, requeued, sent", "09:30:00");
        mails.failed(failedThenSent, at("09:31:00"), at("09:31:01"), Verdict.PERMANENT, 550, "no such user");
        mails.requeue(failedThenSent, at("09:32:00"));
        mails.sent(failedThenSent, at("09:33:00"), at("09:33:01"));
        long tieLow = enqueue("sent at 09:40, lower id", "09:34:00");
        long tieHigh = enqueue("sent at 09:40, higher id", "09:35:00");
        mails.sent(tieLow, at("09:40:00"), at("09:40:01"));
        mails.sent(tieHigh, at("09:40:00"), at("09:40:01"));
        long failedLater = enqueue("failed at 09:45", "09:36:00");
        mails.failed(failedLater, at("09:45:00"), at("09:45:01"), Verdict.PERMANENT, 550, "no such user");
        MailFilter sent = new MailFilter().withStatuses(MailStatus.SENT);
        MailFilter both = new MailFilter().withStatuses(MailStatus.SENT, MailStatus.FAILED);
        assertThat(FinishedOrder.serves(both)).isTrue();

        assertThat(ids(search(sent, 0, 50, "finishedAt,desc")))
                .containsExactly(tieHigh, tieLow, failedThenSent, sentLate, bounced, sentEarly);
        assertThat(ids(search(sent, 0, 50, "finishedAt,asc")))
                .containsExactly(sentEarly, bounced, sentLate, failedThenSent, tieLow, tieHigh);
        assertThat(ids(search(new MailFilter().withStatuses(MailStatus.FAILED), 0, 50, "finishedAt,desc")))
                .as("a mail whose FAILED was not its last status is not FAILED").containsExactly(failedLater, failed);
        MailPage second = search(both, 1, 3, "finishedAt,desc");
        assertThat(second.getTotal()).isEqualTo(8);
        assertThat(second.getMails()).extracting(MailView::getId, MailView::getStatus).containsExactly(
                tuple(failedThenSent, MailStatus.SENT), tuple(sentLate, MailStatus.SENT), tuple(bounced, MailStatus.SENT));
        assertThat(search(both, 3, 3, "finishedAt,desc").getMails()).as("past the last").isEmpty();

        MailFilter viaTheView = new MailFilter().withStatuses(MailStatus.SENT, MailStatus.FAILED);
        viaTheView.setCreatedFrom(at("08:00:00"));
        assertThat(FinishedOrder.serves(viaTheView)).isFalse();
        for (String sort : List.of("finishedAt,desc", "finishedAt,asc")) {
            for (int page = 0; page < 3; page++) {
                assertThat(ids(search(both, page, 3, sort))).as("%s, page %s", sort, page)
                        .isEqualTo(ids(search(viaTheView, page, 3, sort)));
            }
        }
        assertThat(FinishedOrder.serves(new MailFilter().withStatuses(MailStatus.QUEUED, MailStatus.FAILED)))
                .as("queued mail has no finish time: the view sorts it").isFalse();
    }

    /**
     * On PostgreSQL, the first page of FAILED mails by finish time reads about as many log rows as it shows, beside
     * 2,000 mails sent since and 2,000 queued with newer ids ({@link #rowsOf}). The negative control runs the same
     * statement without the log's status index (dropped and built again in the transaction): it then reads every log
     * row.
     */
    @Test
    void onPostgresqlTheFirstFailedPageByFinishTimeReadsAboutWhatItShows() throws Exception {
        assumeTrue("postgresql".equals(QueueDatabase.KIND), "PostgreSQL's planner");
        db.update("INSERT INTO MAIL_MESSAGE (ID, MESSAGE_ID, PRIORITY, CREATED_AT, FROM_ADDRESS, TO_ADDRESSES, SUBJECT,"
                + " TEXT_BODY) SELECT i, '<' || i || '@history.test>', 4, TIMESTAMP '2030-03-01 00:00:00' + i * INTERVAL '1 second',"
                + " 'news@example.com', 'reader' || i || '@example.com', 'mail ' || i, 'Hello' FROM generate_series(100001, 104030) AS g(i)");
        // 30 FAILED (the oldest), then 2,000 SENT, then 2,000 queued (the newest ids)
        db.update("INSERT INTO MAIL_ATTEMPT (ID, MAIL_ID, STARTED_AT, FINISHED_AT, SERVER_INSTANCE, LEASE_OWNER, OUTCOME,"
                + " MAIL_STATUS) SELECT 200000 + i, i, TIMESTAMP '2030-03-02 00:00:00' + i * INTERVAL '1 second',"
                + " TIMESTAMP '2030-03-02 00:00:00' + i * INTERVAL '1 second', 'h', 'h',"
                + " CASE WHEN i <= 100030 THEN 'FAILED' ELSE 'SENT' END, CASE WHEN i <= 100030 THEN 'FAILED' ELSE 'SENT' END"
                + " FROM generate_series(100001, 102030) AS g(i)");
        db.update("INSERT INTO MAIL_QUEUE (MAIL_ID, PRIORITY, CREATED_AT, DUE_AT, ATTEMPTS_LEFT)"
                + " SELECT ID, PRIORITY, CREATED_AT, CREATED_AT + INTERVAL '30 days', 3 FROM MAIL_MESSAGE WHERE ID > 102030");
        db.update("ANALYZE MAIL_MESSAGE");
        db.update("ANALYZE MAIL_ATTEMPT");
        db.update("ANALYZE MAIL_QUEUE");
        String page = FinishedOrder.page(java.util.Set.of(MailStatus.FAILED), false, 0, 20); // as the search runs it

        long[] read = db.inTransaction(() -> {
            try (java.sql.Connection c = db.dataSource().getConnection(); java.sql.Statement s = c.createStatement()) {
                long with = rowsOf(page);
                s.execute("DROP INDEX mail_attempt_status_ix");
                long without = rowsOf(page);
                s.execute("CREATE INDEX mail_attempt_status_ix ON mail_attempt (mail_status, finished_at)"
                        + " WHERE mail_status IS NOT NULL"); // as V13 made it
                return new long[]{with, without};
            }
        });

        List<Long> first = ids(search(new MailFilter().withStatuses(MailStatus.FAILED), 0, 20, "finishedAt,desc"));
        assertThat(first).hasSize(20).startsWith(failed); // the fixture's failed last, on the 14th
        assertThat(first.subList(1, 20)).isSortedAccordingTo(java.util.Comparator.reverseOrder())
                .allMatch(id -> id > 100011 && id <= 100030);
        assertThat(read[0]).as("log rows read for 20 of 30 FAILED beside 4,000 newer mails").isLessThan(100);
        assertThat(read[1]).as("the control: without the status index").isGreaterThan(2000);
    }

    /**
     * @return the log rows the statement's scan of {@code a} (the log rows it pages through) read: the rows it returned
     *         and those its filter removed, over all its loops ({@code EXPLAIN ANALYZE}; the anti-joins' own reads
     *         depend on the table sizes, where the planner swaps index probes for hash tables over a few thousand rows)
     */
    private static long rowsOf(String sql) throws java.sql.SQLException {
        try (java.sql.Connection c = db.dataSource().getConnection();
             java.sql.Statement s = c.createStatement();
             java.sql.ResultSet r = s.executeQuery("EXPLAIN (ANALYZE, FORMAT JSON) " + sql)) {
            r.next();
            String plan = r.getString(1);
            int at = plan.indexOf("\"Alias\": \"a\"");
            String node = plan.substring(at, plan.indexOf('}', at)); // a scan: a leaf, no braces inside
            return number(node, "Actual Rows") * number(node, "Actual Loops") + number(node, "Rows Removed by Filter");
        }
    }

    private static long number(String node, String key) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"" + key + "\": (\\d+)").matcher(node);
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }
}
