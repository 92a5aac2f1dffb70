package dev.mailqueue.template.control;

import freemarker.template.SimpleCollection;
import freemarker.template.TemplateBooleanModel;
import freemarker.template.TemplateCollectionModel;
import freemarker.template.TemplateHashModelEx;
import freemarker.template.TemplateModel;
import freemarker.template.TemplateNumberModel;
import freemarker.template.TemplateScalarModel;
import freemarker.template.TemplateSequenceModel;

import java.util.List;

/**
 * The variables of a trial render ({@link TemplateEngine#trial}): every name is defined, and every value is at once
 * an empty string, the number 0, {@code false}, an empty sequence and a hash whose every key is such a value again.
 * So a template runs through its unconditional parts (the ones every mail runs through) without failing on a
 * variable it was not given. Loops over a variable run no iteration; a loop over a range ({@code 1..n}) runs as
 * it would for every mail.
 */
final class TrialModel implements TemplateHashModelEx, TemplateScalarModel, TemplateNumberModel, TemplateBooleanModel,
        TemplateSequenceModel {

    /** The data model of a trial render. */
    static final TrialModel ROOT = new TrialModel();

    private static final TemplateCollectionModel NONE = new SimpleCollection((Iterable<?>) List.of(), null);

    private TrialModel() {
    }

    @Override
    public TemplateModel get(String key) {
        return this;
    }

    @Override
    public boolean isEmpty() {
        return true;
    }

    @Override
    public int size() {
        return 0;
    }

    @Override
    public TemplateCollectionModel keys() {
        return NONE;
    }

    @Override
    public TemplateCollectionModel values() {
        return NONE;
    }

    @Override
    public TemplateModel get(int index) {
        return null;
    }

    @Override
    public String getAsString() {
        return "";
    }

    @Override
    public Number getAsNumber() {
        return 0;
    }

    @Override
    public boolean getAsBoolean() {
        return false;
    }
}
