package dev.mailqueue.queue.control;

import dev.mailqueue.settings.control.InDoubtPolicy;
import dev.mailqueue.testsupport.QueueDatabase;
import dev.mailqueue.testsupport.TestMails;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Instant;
import java.util.List;
import java.util.TimeZone;

import static dev.mailqueue.testsupport.TestMails.mail;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Times stay instants whatever the JVM's zone: run in Europe/Berlin (surefire sets the zone for every
 * unit test), across the spring-forward of 29 March 2026 (02:00 CET becomes 03:00 CEST, i.e. at 01:00
 * UTC), a lease, a due time and a claim time written inside Berlin's missing hour (as UTC wall-clock
 * 02:00-03:00) read back unchanged, and a lease is taken back exactly when it runs out, not an hour early.
 */
@Tag("database")
class UtcTimeTest {

    /** 02:20 UTC: as a UTC wall-clock time it lies in Berlin's missing hour 02:00-03:00. */
    static final Instant IN_THE_GAP = Instant.parse("2026-03-29T02:20:00Z");

    @RegisterExtension
    static final QueueDatabase db = QueueDatabase.perTestClass();

    @BeforeAll
    static void runsInBerlin() {
        assertThat(TimeZone.getDefault().getID()).as("surefire's -Duser.timezone").isEqualTo("Europe/Berlin");
    }

    @Test
    void aLeaseWrittenInTheMissingHourRunsOutWhenItShouldNotAnHourEarly() {
        EnqueueStore enqueuer = db.enqueueStore();
        ClaimStore store = db.claimStore();
        db.inTransaction(() -> enqueuer.enqueue(TestMails.groups(TestMails.due(mail("dst", 4, IN_THE_GAP), IN_THE_GAP)), "a/s"));
        Lease first = db.inTransaction(() -> store.start("a/s#1", IN_THE_GAP, IN_THE_GAP.plusSeconds(60)));
        assertThat(db.inTransaction(() -> store.claim(first, 1, "a/s", IN_THE_GAP.minusSeconds(1), IN_THE_GAP.minusSeconds(1).plusSeconds(60), 1, InDoubtPolicy.RESEND,
                TestMails.ACCOUNTS, true)).mails()).as("not due a second early").isEmpty();
        List<ClaimedMail> claimed = db.inTransaction(() -> store.claim(first, 2, "a/s", IN_THE_GAP, IN_THE_GAP.plusSeconds(60), 1, InDoubtPolicy.RESEND,
                TestMails.ACCOUNTS, true)).mails();
        assertThat(claimed).singleElement().satisfies(m -> assertThat(m.createdAt()).isEqualTo(IN_THE_GAP));

        Lease second = db.inTransaction(() -> store.start("b/s#2", IN_THE_GAP, IN_THE_GAP.plusSeconds(600)));
        ClaimStore.Claim early = db.inTransaction(() -> store.claim(second, 1, "b/s", IN_THE_GAP.plusSeconds(30), IN_THE_GAP.plusSeconds(30).plusSeconds(60), 1,
                InDoubtPolicy.RESEND, TestMails.ACCOUNTS, true));
        assertThat(early.takenBack()).as("30 s into a 60 s lease").isZero();
        ClaimStore.Claim late = db.inTransaction(() -> store.claim(second, 2, "b/s", IN_THE_GAP.plusSeconds(61), IN_THE_GAP.plusSeconds(61).plusSeconds(60), 1,
                InDoubtPolicy.RESEND, TestMails.ACCOUNTS, true));
        assertThat(late.takenBack()).as("1 s after the lease ran out").isEqualTo(1);
        assertThat(late.mails()).hasSize(1);
    }
}
