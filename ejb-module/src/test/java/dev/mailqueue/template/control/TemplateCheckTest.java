package dev.mailqueue.template.control;

import dev.mailqueue.testsupport.TestTemplates;
import dev.mailqueue.api.FieldError;
import dev.mailqueue.api.MailLimits;
import dev.mailqueue.api.TemplateText;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** What a template must be to be stored, each fault named as the admin API names it. */
class TemplateCheckTest {

    final TemplateEngine engine = TestTemplates.engine();

    List<String> errors(String name, String defaultLocale, TemplateText... locales) {
        List<FieldError> errors = new ArrayList<>();
        TemplateCheck.check(name, defaultLocale, List.of(locales), engine, errors);
        return errors.stream().map(FieldError::toString).toList();
    }

    @Test
    void aGoodTemplatePassesWithItsTagsNormalized() {
        List<FieldError> errors = new ArrayList<>();
        List<TemplateText> checked = TemplateCheck.check("welcome", "EN", List.of(new TemplateText("en", "Hi", "Hi ${x}", null),
                new TemplateText("de-ch", "Grüezi", null, "<p>${x}</p>")), engine, errors);

        assertThat(errors).isEmpty();
        assertThat(checked).extracting(TemplateText::locale).containsExactly("en", "de-CH");
    }

    @Test
    void eachFaultIsNamed() {
        assertThat(errors("bad name!", "en", new TemplateText("en", "s", "t", null))).containsExactly(
                "name: is not a template name (A-Z a-z 0-9 . _ -, 1 to 64 characters)");
        assertThat(errors("t", "fr", new TemplateText("en", "s", "t", null))).containsExactly(
                "defaultLocale: must be one of the template's locales [en]");
        assertThat(errors("t", "en", new TemplateText("en", "s", null, null))).containsExactly(
                "locales.en: needs a text or an html part");
        assertThat(errors("t", "en", new TemplateText("en", "s", "t", null), new TemplateText("EN", "s", "t", null)))
                .containsExactly("locales.EN: is the same locale as another one (en)");
        assertThat(errors("t", "en", new TemplateText("en_US", "s", "t", null), new TemplateText("en", "s", "t", null)))
                .containsExactly("locales.en_US: is not a BCP 47 language tag (RFC 5646), such as de-CH");
        assertThat(errors("t", "en", new TemplateText("en", "x".repeat(MailLimits.SUBJECT_CHARS + 1), "t", null)))
                .containsExactly("locales.en.subject: must be at most 998 characters");
        assertThat(errors("t", "en")).containsExactly("locales: must hold 1 to 100 locales");
    }

    @Test
    void aPartThatDoesNotParseIsNamedWithItsLineAndColumn() {
        assertThat(errors("t", "en", new TemplateText("en", "s", "line one\n<#if x>open", null))).singleElement()
                .asString().startsWith("locales.en.text: does not parse: line ");
        assertThat(errors("t", "en", new TemplateText("en", "s", null, "<p>${oops</p>"))).singleElement()
                .asString().startsWith("locales.en.html: does not parse: line 1, column ");
    }

    @Test
    void aTemplateCanCreateNoObjectAndCallNoApi() {
        TemplateText unsafe = new TemplateText("en", "s", "<#assign ex = \"freemarker.template.utility.Execute\"?new()>${ex(\"id\")}", null);

        assertThat(errors("t", "en", unsafe)).isEmpty(); // it parses; it fails when rendered
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> engine.render(engine.compile("t", unsafe), java.util.Map.of()))
                .isInstanceOf(TemplateEngine.Failure.class).hasMessageContaining("cannot be rendered");
    }

    @Test
    void aTemplateThatPassesALimitInItsTrialRenderIsRefusedAndOneThatDependsOnItsVariablesIsNot() {
        TemplateText doubling = new TemplateText("en", "Report", TemplateLimitsTest.DOUBLING, null);
        TemplateText recursion = new TemplateText("en", "Hi", null, "<#macro m><@m/></#macro><p><@m/></p>");
        TemplateText endless = new TemplateText("en", "Hi", "<#list 1.. as i>${i}</#list>", null);

        assertThat(errors("t", "en", doubling)).containsExactly("locales.en.text: needed more than 33554432 bytes of"
                + " memory to render (mailqueue.templates.max-render-bytes)");
        List<FieldError> allowed = new ArrayList<>();
        TemplateCheck.check("t", "en", List.of(doubling), TestTemplates.engine(RenderLimits.MAX_ALLOCATED_BYTES,
                Long.toString(1L << 30)), allowed);
        assertThat(allowed).as("negative control: the same template under a 1 GiB cap").isEmpty();
        assertThat(errors("t", "en", recursion)).containsExactly(
                "locales.en.html: nests macro or function calls too deeply (the stack overflowed)");
        assertThat(errors("t", "en", endless)).singleElement().asString().startsWith("locales.en.text: ");

        assertThat(errors("t", "en", new TemplateText("en", "Order ${order.number} of ${when?date}",
                "<#list order.items as item>${item.title}: ${item.price * 2}</#list><#if vip>${a.b.c[3]}</#if>${n + 1}",
                "<p>${user.name!\"friend\"}</p><#list 1..3 as i>${i}</#list>")))
                .as("variables it was not given are no fault of a trial render").isEmpty();
    }
}
