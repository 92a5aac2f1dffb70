package dev.mailqueue.http.control;

import dev.mailqueue.api.FieldError;
import dev.mailqueue.api.MailRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.beans.Introspector;
import java.beans.PropertyDescriptor;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shape of a mail in JSON, exactly: every coercion JSON-B made (issue 16's list) is an error naming
 * the field, and a well-formed mail is bound field by field.
 */
class MailRequestJsonTest {

    static final String GOOD = "{\"from\":\"alice@shop.example\",\"fromName\":\"Alice\",\"replyTo\":\"r@shop.example\","
            + "\"to\":[\"bob@to.example\"],\"cc\":[\"c@to.example\"],\"bcc\":[],\"subject\":\"Hi\",\"text\":\"t\","
            + "\"html\":\"<p>h</p>\",\"priority\":7,\"notBefore\":\"2030-01-01T00:00:00Z\","
            + "\"expiresAt\":\"2030-01-02T00:00:00+01:00\",\"perRecipient\":true,\"account\":\"bulk\",\"unsubscribeList\":\"spring-offers\","
            + "\"headers\":{\"X-Campaign\":\"spring\",\"List-Id\":\"<l.shop.example>\"},"
            + "\"attachments\":[{\"filename\":\"a.txt\",\"contentType\":\"text/plain\",\"content\":\"YWI=\"}]}";

    static List<FieldError> errorsOf(String json) throws IOException {
        List<FieldError> errors = new ArrayList<>();
        MailRequestJson.mail(StrictJsonTest.read(json), errors);
        return errors;
    }

    @Test
    void aWellFormedMailIsBoundFieldByField() throws IOException {
        List<FieldError> errors = new ArrayList<>();
        MailRequest mail = MailRequestJson.mail(StrictJsonTest.read(GOOD), errors);

        assertThat(errors).isEmpty();
        assertThat(mail.getFrom()).isEqualTo("alice@shop.example");
        assertThat(mail.getTo()).containsExactly("bob@to.example");
        assertThat(mail.getPriority()).isEqualTo(7);
        assertThat(mail.getNotBefore()).isEqualTo(Instant.parse("2030-01-01T00:00:00Z"));
        assertThat(mail.getExpiresAt()).isEqualTo(Instant.parse("2030-01-01T23:00:00Z"));
        assertThat(mail.isPerRecipient()).isTrue();
        assertThat(mail.getAccount()).isEqualTo("bulk");
        assertThat(mail.getUnsubscribeList()).isEqualTo("spring-offers");
        assertThat(mail.getHeaders()).containsExactly(java.util.Map.entry("X-Campaign", "spring"),
                java.util.Map.entry("List-Id", "<l.shop.example>"));
        assertThat(mail.getAttachments()).singleElement().satisfies(a -> {
            assertThat(a.getFilename()).isEqualTo("a.txt");
            assertThat(a.getContent()).containsExactly('a', 'b');
        });
    }

    /** Issue 12: an address is a string or a {name, address} object; the object becomes a quoted name-addr. */
    @Test
    void anAddressIsAStringOrANameAndAddressObject() throws IOException {
        List<FieldError> errors = new ArrayList<>();
        MailRequest mail = MailRequestJson.mail(StrictJsonTest.read("{\"from\":{\"name\":\"Shop\",\"address\":\"a@b.example\"},"
                + "\"replyTo\":{\"address\":\"help@b.example\"},"
                + "\"to\":[\"\\\"Doe, Jane\\\" <jane@c.example>\",{\"name\":\"Pat \\\"P\\\" O'Neil, Jr.\",\"address\":\"pat@bücher.example\"}],"
                + "\"cc\":[{\"name\":null,\"address\":\"c@c.example\"}]}"), errors);

        assertThat(errors).isEmpty();
        assertThat(mail.getFrom()).isEqualTo("\"Shop\" <a@b.example>");
        assertThat(mail.getReplyTo()).isEqualTo("help@b.example");
        assertThat(mail.getTo()).containsExactly("\"Doe, Jane\" <jane@c.example>", "\"Pat \\\"P\\\" O'Neil, Jr.\" <pat@bücher.example>");
        assertThat(mail.getCc()).containsExactly("c@c.example");
    }

    @Test
    void anAddressObjectNeedsAnAddressAndNoOtherMember() throws IOException {
        List<FieldError> errors = new ArrayList<>();
        MailRequestJson.mail(StrictJsonTest.read("{\"from\":{\"name\":\"Shop\"},\"to\":[{\"address\":\"a@b.example\","
                + "\"email\":\"x\"}, 7],\"bcc\":{\"address\":\"a@b.example\"}}"), errors);

        assertThat(errors).extracting(FieldError::getField)
                .containsExactlyInAnyOrder("from.address", "to[0].email", "to[1]", "bcc");
    }

    @Test
    void nullMeansAbsent() throws IOException {
        List<FieldError> errors = new ArrayList<>();
        MailRequest mail = MailRequestJson.mail(StrictJsonTest.read("{\"from\":\"a@b.example\",\"subject\":null,"
                + "\"to\":null,\"priority\":null,\"perRecipient\":null,\"headers\":null,\"attachments\":null}"), errors);

        assertThat(errors).isEmpty();
        assertThat(mail.getSubject()).isNull();
        assertThat(mail.getTo()).isEmpty();
        assertThat(mail.getPriority()).isNull();
        assertThat(mail.isPerRecipient()).isFalse();
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
            "{\"perRecipient\":\"yes\"}|perRecipient",
            "{\"perRecipient\":1}|perRecipient",
            "{\"priority\":1e400}|priority",
            "{\"priority\":-1e400}|priority",
            "{\"priority\":9223372036854775808}|priority",
            "{\"priority\":2147483648}|priority",
            "{\"priority\":4.5}|priority",
            "{\"priority\":\"7\"}|priority",
            "{\"priority\":true}|priority",
            "{\"from\":[\"a@x.example\"]}|from",
            "{\"subject\":[\"a\"]}|subject",
            "{\"subject\":7}|subject",
            "{\"text\":{}}|text",
            "{\"to\":\"a@x.example\"}|to",
            "{\"to\":[null]}|to[0]",
            "{\"cc\":[1]}|cc[0]",
            "{\"bcc\":[[\"a@x.example\"]]}|bcc[0]",
            "{\"headers\":[]}|headers",
            "{\"headers\":{\"X-A\":1}}|headers.X-A",
            "{\"headers\":{\"X-A\":null}}|headers.X-A",
            "{\"attachments\":{}}|attachments",
            "{\"attachments\":[1]}|attachments[0]",
            "{\"attachments\":[{\"filename\":\"a\",\"content\":[97,98]}]}|attachments[0].content",
            "{\"attachments\":[{\"filename\":\"a\",\"content\":\"not base64!\"}]}|attachments[0].content",
            "{\"attachments\":[{\"filename\":\"a\",\"content\":\"YWI=\",\"size\":2}]}|attachments[0].size",
            "{\"notBefore\":\"tomorrow\"}|notBefore",
            "{\"notBefore\":1767225600}|notBefore",
            "{\"expiresAt\":\"2030-13-01T00:00:00Z\"}|expiresAt",
            "{\"account\":[\"bulk\"]}|account",
            "{\"bc\":[\"a@x.example\"]}|bc"})
    void everyCoercionOfJsonBIsAnErrorNamingTheField(String json, String field) throws IOException {
        assertThat(errorsOf(json)).extracting(FieldError::getField).contains(field);
    }

    @Test
    void aBatchIsAnArrayOfMailObjectsNamedByIndex() throws IOException {
        List<FieldError> errors = new ArrayList<>();
        List<MailRequest> mails = MailRequestJson.mails(StrictJsonTest.read("[" + GOOD + "," + GOOD + "]"), errors);
        assertThat(errors).isEmpty();
        assertThat(mails).hasSize(2);

        errors.clear();
        MailRequestJson.mails(StrictJsonTest.read("[[" + GOOD + "]]"), errors);
        assertThat(errors).extracting(FieldError::getField).containsExactly("[0]");

        errors.clear();
        MailRequestJson.mails(StrictJsonTest.read("[" + GOOD + ",{\"priority\":\"high\"}]"), errors);
        assertThat(errors).extracting(FieldError::getField).containsExactly("[1].priority");

        errors.clear();
        MailRequestJson.mails(StrictJsonTest.read(GOOD), errors);
        assertThat(errors).extracting(FieldError::getField).containsExactly("");
    }

    @Test
    void aBatchOverTheLimitIsRefusedBeforeAnyMailIsBound() throws IOException {
        List<FieldError> errors = new ArrayList<>();
        MailRequestJson.mails(StrictJsonTest.read("[" + "{},".repeat(dev.mailqueue.api.MailLimits.BATCH) + "{}]"), errors);

        assertThat(errors).singleElement().satisfies(e -> assertThat(e.getMessage()).contains("10000"));
    }

    @Test
    void anUnknownFieldNameIsShownShortened() throws IOException {
        String name = "x".repeat(500);
        assertThat(errorsOf("{\"" + name + "\":1}")).singleElement()
                .satisfies(e -> assertThat(e.getField()).hasSizeLessThan(70));
    }

    /**
     * A field is declared once, on {@link MailRequest}; the binder reads it by name and the names it reads are
     * the ones it accepts. A property added to the api type and not bound, or a name bound that the type does
     * not have, fails here.
     */
    @Test
    void theFieldsAcceptedAreTheMailRequestsProperties() throws Exception {
        FieldError unknown = errorsOf("{\"bc\":[]}").get(0);
        Set<String> properties = new TreeSet<>();
        for (PropertyDescriptor property : Introspector.getBeanInfo(MailRequest.class, Object.class).getPropertyDescriptors()) {
            if (property.getWriteMethod() != null) {
                properties.add(property.getName());
            }
        }

        assertThat(unknown.getField()).isEqualTo("bc");
        assertThat(unknown.getMessage()).isEqualTo("is not a field of a mail; its fields are " + properties);
    }

    @Test
    void anAttachmentsUnknownFieldIsNamedWithItsPlace() throws IOException {
        assertThat(errorsOf("{\"attachments\":[{\"filename\":\"a\",\"contentType\":\"text/plain\",\"content\":\"YQ==\",\"size\":1}]}"))
                .extracting(FieldError::getField, FieldError::getMessage)
                .contains(org.assertj.core.groups.Tuple.tuple("attachments[0].size",
                        "is not a field of an attachment; its fields are [content, contentType, filename]"));
    }
}
