package dev.mailqueue.template.control;

import dev.mailqueue.testsupport.TestTemplates;
import dev.mailqueue.api.FieldError;
import dev.mailqueue.api.InvalidMailException;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.api.TemplateText;
import dev.mailqueue.api.TemplateView;
import dev.mailqueue.queue.control.TemplateStore;
import dev.mailqueue.testsupport.QueueDatabase;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Rendering at enqueue against templates stored in the real schema: locale lookup, escaping, the text part
 * derived from HTML, versions, and each kind of template error named with the template, locale and variable.
 */
@Tag("database")
class TemplateRenderingTest {

    @RegisterExtension
    static final QueueDatabase db = QueueDatabase.perTestClass();

    TemplateStore store;
    TemplateRendering cut;

    @BeforeEach
    void setUp() {
        db.update("DELETE FROM MAIL_TEMPLATE");
        store = TemplateStore.on(db.tables());
        cut = TemplateRendering.of(store, TestTemplates.engine(), 1_000_000);
        db.inTransaction(() -> store.store("reset", "en", List.of(
                new TemplateText("en", "Reset your password, ${user.name}", "Hello ${user.name}, use ${link}.", null),
                new TemplateText("de", "Passwort zurücksetzen, ${user.name}", "Hallo ${user.name}, nimm ${link}.", null),
                new TemplateText("de-CH", "Passwort zurücksetzen (CH)", "Grüezi ${user.name}", null)),
                Instant.now(), "admin"));
    }

    MailRequest mail(String template, String locale, Map<String, ?> variables) {
        return new MailRequest().from("noreply@example.com").to("jane@example.com").template(template, locale, variables);
    }

    Map<String, Object> jane() {
        return Map.of("user", Map.of("name", "Jane"), "link", "https://example.com/r/1");
    }

    @Test
    void aLocaleFallsBackFromRegionToLanguageToTheDefault() throws InvalidMailException {
        assertThat(cut.render(mail("reset", "de-CH", jane())).getSubject()).isEqualTo("Passwort zurücksetzen (CH)");
        assertThat(cut.render(mail("reset", "de-AT", jane())).getSubject()).isEqualTo("Passwort zurücksetzen, Jane");
        assertThat(cut.render(mail("reset", "fr-FR", jane())).getSubject()).isEqualTo("Reset your password, Jane");
        assertThat(cut.render(mail("reset", null, jane())).getText()).isEqualTo("Hello Jane, use https://example.com/r/1.");
    }

    @Test
    void aComposedMailAndNoMailPassAsTheyAreForTheValidatorToJudge() throws InvalidMailException {
        MailRequest composed = new MailRequest().from("a@example.com").to("b@example.com").text("plain");

        assertThat(cut.render(composed)).isSameAs(composed);
        assertThat(cut.render(null)).isNull();
        assertThat(cut.renderAll(java.util.Arrays.asList(composed, null))).containsExactly(composed, null);
    }

    @Test
    void theCallersRequestIsLeftAsItWas() throws InvalidMailException {
        MailRequest request = mail("reset", "de", jane());

        MailRequest rendered = cut.render(request);

        assertThat(rendered.getText()).isEqualTo("Hallo Jane, nimm https://example.com/r/1.");
        assertThat(request.getSubject()).isNull();
        assertThat(request.getText()).isNull();
    }

    @Test
    void htmlIsEscapedAndGivesTheTextPart() throws InvalidMailException {
        db.inTransaction(() -> store.store("news", "en", List.of(new TemplateText("en", "Hi ${name}", null,
                "<p>Hello <b>${name}</b></p><ul><li>${item}</li></ul><p><a href=\"https://example.com/x\">Read</a></p>")),
                Instant.now(), "admin"));

        MailRequest rendered = cut.render(mail("news", "en", Map.of("name", "<script>alert(1)</script>", "item", "A & B")));

        assertThat(rendered.getHtml()).contains("<b>&lt;script&gt;alert(1)&lt;/script&gt;</b>").doesNotContain("<script>");
        assertThat(rendered.getSubject()).isEqualTo("Hi <script>alert(1)</script>"); // plain text: nothing to escape
        assertThat(rendered.getText()).isEqualTo("Hello <script>alert(1)</script>\n\n- A & B\n\nRead <https://example.com/x>");
    }

    @Test
    void numbersAreWrittenInTheMailsLocale() throws InvalidMailException {
        db.inTransaction(() -> store.store("total", "en", List.of(new TemplateText("en", null, "${sum}", null),
                new TemplateText("de", null, "${sum}", null)), Instant.now(), "admin"));

        assertThat(cut.render(mail("total", "en", Map.of("sum", new BigDecimal("1234.5")))).getText()).isEqualTo("1,234.5");
        assertThat(cut.render(mail("total", "de", Map.of("sum", new BigDecimal("1234.5")))).getText()).isEqualTo("1.234,5");
    }

    @Test
    void aNewVersionIsWhatLaterMailIsRenderedFrom() throws InvalidMailException {
        MailRequest before = cut.render(mail("reset", "en", jane()));
        db.inTransaction(() -> store.store("reset", "en", List.of(new TemplateText("en", "New subject", "v2 ${link}", null)),
                Instant.now(), "admin"));

        MailRequest after = cut.render(mail("reset", "de", jane()));

        assertThat(before.getSubject()).isEqualTo("Reset your password, Jane");
        assertThat(after.getSubject()).isEqualTo("New subject"); // version 2 has English only
        assertThat(store.newest("reset").orElseThrow().version()).isEqualTo(2);
    }

    @Test
    void aTemplateDeletedAndStoredAgainContinuesItsVersionsAndEveryServerRendersTheNewContent() throws Exception {
        TemplateRendering otherServer = TemplateRendering.of(store, TestTemplates.engine(), 1_000_000);
        assertThat(otherServer.render(mail("reset", "en", jane())).getSubject()).isEqualTo("Reset your password, Jane");
        db.inTransaction(() -> store.store("reset", "en", List.of(new TemplateText("en", "Second", "v2", null)),
                Instant.now(), "admin"));

        assertThat(db.inTransaction(() -> store.delete("reset", Instant.now(), "admin"))).isTrue();
        assertThat(store.newest("reset")).as("deleted").isEmpty();
        assertThat(store.list()).extracting(TemplateView::name).doesNotContain("reset");
        assertThat(errors(mail("reset", "en", jane()))).containsExactly("template.name: is no stored template: reset");
        assertThat(db.inTransaction(() -> store.delete("reset", Instant.now(), "admin"))).as("deleted twice").isFalse();
        TemplateView again = db.inTransaction(() -> store.store("reset", "en",
                List.of(new TemplateText("en", "Stored again, ${user.name}", "v3", null)), Instant.now(), "admin"));

        assertThat(again.version()).as("no version number used twice").isEqualTo(3);
        assertThat(store.newest("reset").orElseThrow().version()).isEqualTo(3);
        assertThat(otherServer.render(mail("reset", "en", jane())).getSubject()).as("the server that cached version 1")
                .isEqualTo("Stored again, Jane");
        assertThat(cut.render(mail("reset", "en", jane())).getSubject()).isEqualTo("Stored again, Jane");
        db.inTransaction(() -> store.delete("reset", Instant.now(), "admin"));
        assertThat(db.inTransaction(() -> store.store("reset", "en", List.of(new TemplateText("en", "s", "t", null)),
                Instant.now(), "admin")).version()).as("after a second deletion").isEqualTo(4);
    }

    @Test
    void aKeptCompilationIsUsedOnlyForTheSourceItWasCompiledFrom() throws Exception {
        TemplateEngine engine = TestTemplates.engine();
        TemplateText first = new TemplateText("en", "First ${n}", "one", null);
        TemplateText other = new TemplateText("en", "Other ${n}", "two", null);

        assertThat(engine.render(engine.compiled("news", 1, first), Map.of("n", 1)).subject()).isEqualTo("First 1");
        // the same name, version and locale with another source: what a database restored from a backup, or a
        // server of an older build deleting without a tombstone, could give
        assertThat(engine.render(engine.compiled("news", 1, other), Map.of("n", 2)).subject()).isEqualTo("Other 2");
        assertThat(engine.compiled("news", 1, new TemplateText("en", "Other ${n}", "two", null)))
                .as("an equal source read again is the kept compilation").isSameAs(engine.compiled("news", 1, other));
    }

    @Test
    void aTemplateThatPassesALimitIsAnInvalidMailNamingTheTemplateNeverAnError() {
        db.inTransaction(() -> store.store("deep", "en", List.of(new TemplateText("en", null,
                "<#macro m n><@m n + 1/></#macro><#if go><@m 0/></#if>", null)), Instant.now(), "admin"));
        db.inTransaction(() -> store.store("slow", "en", List.of(new TemplateText("en", null,
                "<#list 1..n as i></#list>done", null)), Instant.now(), "admin"));
        TemplateRendering strict = TemplateRendering.of(store, TestTemplates.engine(RenderLimits.TIMEOUT, "50",
                RenderLimits.MAX_ALLOCATED_BYTES, Long.toString(16L << 30)), 1_000_000);

        assertThat(errors(mail("deep", "en", Map.of("go", true)))).containsExactly("template: template deep version 1,"
                + " locale en: text nests macro or function calls too deeply (the stack overflowed)");
        assertThatThrownBy(() -> strict.render(mail("slow", "en", Map.of("n", 2_000_000_000))))
                .isInstanceOfSatisfying(InvalidMailException.class, e -> assertThat(e.getErrors()).extracting(FieldError::toString)
                        .containsExactly("template: template slow version 1, locale en: text took longer than 50 ms to"
                                + " render (mailqueue.templates.render-timeout.ms)"));
    }

    @Test
    void eachKindOfTemplateErrorNamesTheTemplateTheLocaleAndTheVariable() {
        assertThat(errors(mail("nope", "en", jane()))).containsExactly(
                "template.name: is no stored template: nope");
        assertThat(errors(mail("reset", "de", Map.of("link", "x")))).singleElement().asString()
                .startsWith("template.variables.user: is not defined (template reset version 1, locale de, subject line 1)");
        assertThat(errors(mail("reset", "de", Map.of("user", "Jane", "link", "x")))).singleElement().asString()
                .startsWith("template.variables.user: cannot be rendered: ");
        assertThat(errors(mail("reset", "de_CH", jane()))).containsExactly(
                "template.locale: is not a BCP 47 language tag (RFC 5646), such as de-CH");
        assertThat(errors(mail("reset", "en", Map.of("user", new Object())))).containsExactly(
                "template.variables.user: must be a string, number, boolean, list or map, not a Object");
        assertThat(errors(mail("reset", "en", jane()).subject("mine"))).containsExactly(
                "template: takes the place of subject, text and html: leave them out");
    }

    @Test
    void aBatchNamesEveryMailAtFault() {
        List<MailRequest> batch = new ArrayList<>();
        batch.add(mail("reset", "en", jane()));
        batch.add(mail("reset", "en", Map.of()));
        batch.add(new MailRequest().from("a@example.com").to("b@example.com").text("plain"));
        batch.add(mail("gone", "en", Map.of()));

        assertThatThrownBy(() -> cut.renderAll(batch)).isInstanceOfSatisfying(InvalidMailException.class,
                e -> assertThat(e.getErrors()).extracting(FieldError::getField)
                        .containsExactly("[1].template.variables.user", "[3].template.name"));
    }

    @Test
    void aCallThatRendersTooMuchIsRefused() {
        TemplateRendering capped = TemplateRendering.of(store, TestTemplates.engine(), 100);
        List<MailRequest> batch = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            batch.add(mail("reset", "en", jane()));
        }

        assertThatThrownBy(() -> capped.renderAll(batch)).isInstanceOfSatisfying(InvalidMailException.class,
                e -> assertThat(e.getErrors()).extracting(FieldError::getField).containsExactly("[1].template"));
    }

    List<String> errors(MailRequest request) {
        try {
            cut.render(request);
            throw new AssertionError("rendered: " + request);
        } catch (InvalidMailException e) {
            return e.getErrors().stream().map(FieldError::toString).toList();
        }
    }
}
