package dev.mailqueue.dispatch.control;

import dev.mailqueue.api.MailStatus;
import dev.mailqueue.mail.entity.MailMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.LocalDateTime;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Mail a rate limit holds back goes back to the queue on the real schema: QUEUED, due when its turn is
 * expected, lease cleared, attempts untouched, nothing in the attempt log; and never a row whose lease
 * another claimer holds now.
 */
class DeferredMailsTest {

    static final LocalDateTime NOW = LocalDateTime.of(2030, 3, 14, 9, 26, 53);
    static final String OWNER = "mail1.example.com/mailqueue#7";

    @RegisterExtension
    static final QueueDatabase db = QueueDatabase.perTestClass();
    final DeferredMails cut = new DeferredMails();

    @Test
    void aDeferredMailIsQueuedAgainForItsTurnWithoutCostingAnAttempt() {
        MailMessage mail = Rows.queued("held back", NOW.minusMinutes(1));
        db.insert(mail);
        assertThat(claim(OWNER)).containsExactly(mail.getId());

        int deferred = defer(Map.of(mail.getId(), NOW.plusSeconds(45)), OWNER);

        assertThat(deferred).isEqualTo(1);
        MailMessage stored = db.reload(mail.getId());
        assertThat(stored.getStatus()).isEqualTo(MailStatus.QUEUED);
        assertThat(stored.getNotBefore()).isEqualTo(NOW.plusSeconds(45));
        assertThat(stored.getAttemptsRemaining()).isEqualTo(mail.getAttemptsRemaining());
        assertThat(stored.getLeaseOwner()).isNull();
        assertThat(stored.getLeaseExpiresAt()).isNull();
        assertThat(db.attempts(mail.getId())).isEmpty();
        assertThat(claim("other#1")).as("not due before its turn").isEmpty();
    }

    @Test
    void aRowLeasedToAnotherClaimerIsLeftAlone() {
        MailMessage mail = Rows.queued("taken over", NOW.minusMinutes(1));
        db.insert(mail);
        assertThat(claim("other#1")).containsExactly(mail.getId());

        assertThat(defer(Map.of(mail.getId(), NOW.plusSeconds(45)), OWNER)).isZero();
        assertThat(db.reload(mail.getId()).getStatus()).isEqualTo(MailStatus.SENDING);
        assertThat(db.reload(mail.getId()).getLeaseOwner()).isEqualTo("other#1");
    }

    private int defer(Map<Long, LocalDateTime> dueAgain, String owner) {
        return db.inTransaction(em -> {
            cut.em = em;
            return cut.defer(dueAgain, owner);
        });
    }

    private static List<Long> claim(String owner) {
        return db.inTransaction(em -> {
            MailClaimer claimer = new MailClaimer();
            claimer.em = em;
            return claimer.claim(owner, 60_000, 10, NOW).stream().map(MailMessage::getId).toList();
        });
    }
}
