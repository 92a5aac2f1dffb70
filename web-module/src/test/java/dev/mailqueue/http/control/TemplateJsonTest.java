package dev.mailqueue.http.control;

import dev.mailqueue.api.FieldError;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.api.TemplateText;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The template bodies of the admin API and a mail's template reference, bound with exact types. */
class TemplateJsonTest {

    @Test
    void aMailsTemplateReferenceKeepsItsVariablesAsData() throws IOException {
        List<FieldError> errors = new ArrayList<>();
        MailRequest mail = MailRequestJson.mail(StrictJsonTest.read("{\"from\":\"a@b.example\",\"to\":[\"c@d.example\"],"
                + "\"template\":{\"name\":\"reset\",\"locale\":\"de-CH\",\"variables\":{\"user\":{\"name\":\"Jo\"},"
                + "\"n\":1.50,\"vip\":true,\"items\":[\"a\",null]}}}"), errors);

        assertThat(errors).isEmpty();
        assertThat(mail.getTemplate().getName()).isEqualTo("reset");
        assertThat(mail.getTemplate().getLocale()).isEqualTo("de-CH");
        Map<String, Object> variables = mail.getTemplate().getVariables();
        assertThat(variables).containsEntry("user", Map.of("name", "Jo")).containsEntry("n", new BigDecimal("1.50"))
                .containsEntry("vip", true);
        assertThat(variables.get("items")).isEqualTo(java.util.Arrays.asList("a", null));
    }

    @Test
    void aTemplateReferenceOfTheWrongShapeIsNamed() throws IOException {
        List<FieldError> errors = new ArrayList<>();
        MailRequestJson.mail(StrictJsonTest.read("{\"template\":{\"name\":7,\"variables\":[],\"vars\":{}}}"), errors);

        assertThat(errors).extracting(FieldError::getField)
                .contains("template.name", "template.variables", "template.vars");
    }

    @Test
    void aTemplateToStoreIsReadWithItsLocalesInOrder() throws IOException {
        List<FieldError> errors = new ArrayList<>();
        TemplateJson.Definition d = TemplateJson.definition(StrictJsonTest.read("{\"defaultLocale\":\"en\",\"locales\":{"
                + "\"en\":{\"subject\":\"S\",\"text\":\"T\"},\"de\":{\"html\":\"<p>H</p>\"}}}"), errors);

        assertThat(errors).isEmpty();
        assertThat(d.defaultLocale()).isEqualTo("en");
        assertThat(d.locales()).containsExactly(new TemplateText("en", "S", "T", null),
                new TemplateText("de", null, null, "<p>H</p>"));
    }

    @Test
    void unknownMembersAndMissingLocalesAreRefused() throws IOException {
        List<FieldError> errors = new ArrayList<>();
        TemplateJson.definition(StrictJsonTest.read("{\"defaultLocale\":\"en\",\"local\":{}}"), errors);
        TemplateJson.definition(StrictJsonTest.read("{\"locales\":{\"en\":{\"body\":\"x\"}}}"), errors);
        TemplateJson.preview(StrictJsonTest.read("{\"locale\":\"en\",\"variables\":\"x\"}"), errors);

        assertThat(errors).extracting(FieldError::getField)
                .containsExactly("local", "locales", "locales.en.body", "variables");
    }
}
