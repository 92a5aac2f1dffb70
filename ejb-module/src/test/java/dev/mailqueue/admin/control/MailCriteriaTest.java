package dev.mailqueue.admin.control;

import dev.mailqueue.queue.control.MailLifecycle;
import dev.mailqueue.api.MailFilter;
import dev.mailqueue.api.MailStatus;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class MailCriteriaTest {

    @Test
    void textCriteriaMatchLiterallyWithTheLikeWildcardsEscaped() {
        assertThat(MailCriteria.contains("@example.org")).isEqualTo("%@example.org%");
        assertThat(MailCriteria.contains("100%_sure\\")).isEqualTo("%100\\%\\_sure\\\\%");
    }

    @Test
    void anActionsStatusesAreIntersectedWithTheFiltersSoSendingIsNeverIncluded() {
        MailFilter any = new MailFilter().withRecipient("x");
        assertThat(MailCriteria.statuses(any, null)).as("search without status: no restriction").isNull();
        assertThat(MailCriteria.statuses(any, MailLifecycle.DELETABLE)).doesNotContain(MailStatus.SENDING);

        MailFilter failedOrSending = new MailFilter().withStatuses(MailStatus.FAILED, MailStatus.SENDING);
        assertThat(MailCriteria.statuses(failedOrSending, MailLifecycle.REQUEUEABLE)).containsExactly(MailStatus.FAILED);
        assertThat(MailCriteria.statuses(failedOrSending, MailLifecycle.CANCELLABLE)).isEmpty();
        assertThat(MailCriteria.statuses(failedOrSending, null))
                .containsExactly(MailStatus.FAILED, MailStatus.SENDING);
    }

    @Test
    void onlyAFilterWithoutAnyCriterionIsEmpty() {
        assertThat(new MailFilter().isEmpty()).isTrue();
        assertThat(new MailFilter().withIds(1L).isEmpty()).isFalse();
        MailFilter bounced = new MailFilter();
        bounced.setBounced(false);
        assertThat(bounced.isEmpty()).isFalse();
        MailFilter subject = new MailFilter();
        subject.setSubject("invoice");
        assertThat(subject.isEmpty()).isFalse();
        MailFilter account = new MailFilter();
        account.setAccount("backup");
        assertThat(account.isEmpty()).isFalse();
    }
}
