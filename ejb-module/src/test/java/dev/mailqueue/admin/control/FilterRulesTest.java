package dev.mailqueue.admin.control;

import dev.mailqueue.api.FieldError;
import dev.mailqueue.api.InvalidFilterException;
import dev.mailqueue.api.MailFilter;
import dev.mailqueue.api.MailStatus;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** A filter's criteria, checked before any statement: nothing blank, unstorable or unbounded. */
class FilterRulesTest {

    static List<String> fields(MailFilter filter) {
        InvalidFilterException e = catchThrowableOfType(() -> FilterRules.check(filter), InvalidFilterException.class);
        return e == null ? List.of() : e.getErrors().stream().map(FieldError::getField).toList();
    }

    @Test
    void aUsualFilterPasses() {
        MailFilter filter = new MailFilter().withStatuses(MailStatus.FAILED).withRecipient("@example.org")
                .withErrorText("550 5.1.1");
        filter.setCreatedFrom(Instant.parse("2026-01-01T00:00:00Z"));

        assertThatCode(() -> FilterRules.check(filter)).doesNotThrowAnyException();
        assertThatCode(() -> FilterRules.check(null)).doesNotThrowAnyException();
    }

    @Test
    void aBlankTextCriterionIsAnErrorNotAMatchAll() {
        MailFilter filter = new MailFilter();
        filter.setSender("");
        filter.setRecipient("  ");
        filter.setEnqueuedBy("\t");
        filter.setErrorText("");

        assertThat(fields(filter)).containsExactlyInAnyOrder("sender", "recipient", "enqueuedBy", "errorText");
    }

    @Test
    void textTheDatabaseCannotTakeIsRefused() {
        MailFilter filter = new MailFilter().withRecipient("a\u0000b").withErrorText("x".repeat(999));
        filter.setSender("\ud800");
        filter.setEnqueuedBy("me\r\nFORGED");

        assertThat(fields(filter)).containsExactlyInAnyOrder("recipient", "errorText", "sender", "enqueuedBy");
    }

    @Test
    void datesOutsideTheStoredRangeAreRefused() {
        MailFilter filter = new MailFilter();
        filter.setCreatedFrom(Instant.parse("+999999999-12-31T23:59:59Z"));
        filter.setCreatedTo(Instant.parse("-999999999-01-01T00:00:00Z"));

        assertThat(fields(filter)).containsExactlyInAnyOrder("createdFrom", "createdTo");
    }

    @Test
    void nullIdsOrStatusesAndTooManyIdsAreRefused() {
        MailFilter nulls = new MailFilter();
        nulls.setIds(new ArrayList<>(Arrays.asList(1L, null)));
        nulls.setStatuses(new ArrayList<>(Arrays.asList(null, MailStatus.QUEUED)));
        assertThat(fields(nulls)).containsExactlyInAnyOrder("ids[1]", "statuses[0]");

        MailFilter many = new MailFilter();
        many.setIds(LongStream.rangeClosed(1, FilterRules.IDS + 1).boxed().toList());
        assertThat(fields(many)).containsExactly("ids");
    }
}
