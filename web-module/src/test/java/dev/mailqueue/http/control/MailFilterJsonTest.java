package dev.mailqueue.http.control;

import dev.mailqueue.api.FieldError;
import dev.mailqueue.api.MailFilter;
import dev.mailqueue.api.MailStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** A bulk action's filter in JSON: exact types, so no criterion is silently read as "match all". */
class MailFilterJsonTest {

    @Test
    void everyCriterionIsBound() throws IOException {
        List<FieldError> errors = new ArrayList<>();
        MailFilter filter = MailFilterJson.filter(StrictJsonTest.read("{\"ids\":[1,2],\"statuses\":[\"FAILED\"],"
                + "\"recipient\":\"@x.example\",\"sender\":\"s\",\"enqueuedBy\":\"shop\",\"errorText\":\"550\","
                + "\"createdFrom\":\"2026-01-01T00:00:00Z\",\"createdTo\":\"2026-02-01T00:00:00Z\",\"bounced\":true}"), errors);

        assertThat(errors).isEmpty();
        assertThat(filter.getIds()).containsExactly(1L, 2L);
        assertThat(filter.getStatuses()).containsExactly(MailStatus.FAILED);
        assertThat(filter.getCreatedFrom()).isEqualTo(Instant.parse("2026-01-01T00:00:00Z"));
        assertThat(filter.getBounced()).isTrue();
        assertThat(filter.getErrorText()).isEqualTo("550");
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
            "{\"bounced\":\"maybe\"}|bounced",
            "{\"bounced\":\"false\"}|bounced",
            "{\"bounced\":0}|bounced",
            "{\"ids\":[null]}|ids[0]",
            "{\"ids\":[\"1\"]}|ids[0]",
            "{\"ids\":[1.5]}|ids[0]",
            "{\"ids\":[1e30]}|ids[0]",
            "{\"ids\":1}|ids",
            "{\"statuses\":\"FAILED\"}|statuses",
            "{\"statuses\":[\"failed\"]}|statuses[0]",
            "{\"statuses\":[null]}|statuses[0]",
            "{\"statuses\":[1,\"NOPE\"]}|statuses[1]",
            "{\"sender\":[\"x\"]}|sender",
            "{\"createdFrom\":\"yesterday\"}|createdFrom",
            "{\"status\":[\"FAILED\"]}|status"})
    void aCriterionOfTheWrongShapeIsAnErrorNamingIt(String json, String field) throws IOException {
        List<FieldError> errors = new ArrayList<>();
        MailFilterJson.filter(StrictJsonTest.read(json), errors);

        assertThat(errors).extracting(FieldError::getField).contains(field);
    }

    @Test
    void aFilterMustBeAnObject() throws IOException {
        List<FieldError> errors = new ArrayList<>();
        MailFilterJson.filter(StrictJsonTest.read("[{\"ids\":[1]}]"), errors);

        assertThat(errors).extracting(FieldError::getField).containsExactly("");
    }
}
