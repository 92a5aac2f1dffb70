package dev.mailqueue.admin.control;

import dev.mailqueue.api.FieldError;
import dev.mailqueue.api.InvalidFilterException;
import dev.mailqueue.api.MailFilter;
import dev.mailqueue.api.MailPage;
import dev.mailqueue.api.MailView;
import dev.mailqueue.api.SearchTimeoutException;
import dev.mailqueue.testsupport.MailStates;
import dev.mailqueue.testsupport.QueueDatabase;
import dev.mailqueue.testsupport.TestMails;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static dev.mailqueue.testsupport.TestMails.mail;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/**
 * A search of mails that runs past {@code mailqueue.admin.search-timeout.ms} is stopped by the database and ends in
 * a {@link SearchTimeoutException} naming the criteria no index serves, on the real schema of each database. The
 * search is held up for certain by another connection that locks the mails' table against readers (as a costly
 * search holds itself up by reading every mail); without a limit, the same search waits for the lock and finds the
 * mail. PostgreSQL and MariaDB only: Derby checks a statement's timeout while it reads rows, not while it waits for a
 * lock (that wait ends at Derby's own lock timeout, 60 s), and a Derby table large enough to read for a second would
 * make this test slow.
 */
@Tag("database")
class SearchTimeoutTest {

    static final Instant NOW = Instant.parse("2030-03-14T09:26:53Z");

    @RegisterExtension
    static final QueueDatabase db = QueueDatabase.perTestClass();

    MailStates mails = new MailStates(db);

    static MailPage search(MailFilter filter, long timeoutMillis) throws InvalidFilterException {
        try {
            return db.jpa(em -> {
                try {
                    return MailSearch.page(em, filter, 0, 20, null, timeoutMillis);
                } catch (InvalidFilterException e) {
                    throw new Wrapped(e);
                }
            });
        } catch (Wrapped e) {
            throw e.getCause();
        }
    }

    /** Carries a checked exception out of {@link QueueDatabase#jpa}. */
    static final class Wrapped extends RuntimeException {
        Wrapped(InvalidFilterException e) {
            super(e);
        }

        @Override
        public synchronized InvalidFilterException getCause() {
            return (InvalidFilterException) super.getCause();
        }
    }

    /** Locks MAIL_MESSAGE against readers until {@code c}'s transaction ends. */
    static void lockAgainstReaders(Connection c) throws SQLException {
        c.setAutoCommit(false);
        try (Statement s = c.createStatement()) {
            s.execute("postgresql".equals(QueueDatabase.KIND) ? "LOCK TABLE MAIL_MESSAGE IN ACCESS EXCLUSIVE MODE"
                    : "LOCK TABLES MAIL_MESSAGE WRITE");
        }
    }

    static void release(Connection c) throws SQLException {
        if ("mariadb".equals(QueueDatabase.KIND)) {
            try (Statement s = c.createStatement()) {
                s.execute("UNLOCK TABLES");
            }
        }
        c.rollback();
    }

    @Test
    void aSearchHeldUpPastItsTimeoutIsStoppedNamingTheCriteriaNoIndexServesAndWithoutALimitItWaits() throws Exception {
        assumeFalse(QueueDatabase.isDerby(), "Derby does not stop a statement waiting for a lock at its timeout");
        long id = mails.enqueue(TestMails.to(mail("to find", 4, NOW), List.of("someone@example.com"), List.of(),
                List.of()));
        MailFilter filter = new MailFilter().withRecipient("someone@");
        assertThat(search(filter, 1_000).getMails()).extracting(MailView::getId).as("unhindered, in time")
                .containsExactly(id);

        try (Connection locker = db.connect()) {
            lockAgainstReaders(locker);
            long start = System.nanoTime();
            Throwable stopped = catchThrowable(() -> search(filter, 1_000));
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            release(locker);

            assertThat(stopped).isInstanceOf(SearchTimeoutException.class);
            assertThat(((SearchTimeoutException) stopped).getErrors()).extracting(FieldError::getField)
                    .containsExactly("recipient");
            assertThat(took).as("stopped at about 1 s").isBetween(Duration.ofMillis(900), Duration.ofSeconds(20));
        }

        try (Connection locker = db.connect()) {
            lockAgainstReaders(locker);
            CompletableFuture<MailPage> unlimited = CompletableFuture.supplyAsync(() -> {
                try {
                    return search(filter, 0);
                } catch (InvalidFilterException e) {
                    throw new IllegalStateException(e);
                }
            });
            Thread.sleep(2_500);
            assertThat(unlimited).as("negative control: no limit, the search waits past 1 s").isNotDone();
            release(locker);
            assertThat(unlimited.get(30, TimeUnit.SECONDS).getMails()).extracting(MailView::getId).containsExactly(id);
        }
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_QUEUE WHERE MAIL_ID = ?", id)).as("still queued").isEqualTo(1);
    }
}
