package dev.mailqueue.http.control;

import dev.mailqueue.api.FieldError;
import dev.mailqueue.api.MailFilter;
import dev.mailqueue.api.MailStatus;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Binds the JSON body of a bulk action ({@code POST /api/admin/mails/requeue}, {@code /cancel},
 * {@code /delete}) to a {@link MailFilter} with exact types ({@link JsonFields}): {@code ids} an array
 * of whole numbers, {@code statuses} an array of status names (exactly as {@link MailStatus} spells
 * them), {@code recipient}, {@code sender}, {@code enqueuedBy}, {@code errorText} strings,
 * {@code createdFrom}/{@code createdTo} ISO-8601 instants, {@code bounced} {@code true} or
 * {@code false}; no other member. {@code "bounced": "maybe"} is an error here, where it used to be
 * read as false and so matched nearly every mail.
 */
public final class MailFilterJson {

    private MailFilterJson() {
    }

    /**
     * @param json   the body's value, an object
     * @param errors where shape errors are added, named as the JSON names the field
     * @return the filter; meaningless when {@code errors} is not empty afterwards
     */
    public static MailFilter filter(JsonValue json, List<FieldError> errors) {
        MailFilter filter = new MailFilter();
        if (!(json instanceof JsonObject object)) {
            errors.add(new FieldError("", "must be a JSON object (a filter)"));
            return filter;
        }
        JsonFields in = new JsonFields(object, "", errors);
        List<Long> ids = in.wholes("ids", Long.MIN_VALUE, Long.MAX_VALUE);
        filter.setIds(ids);
        List<String> statuses = in.strings("statuses");
        if (statuses != null) {
            List<MailStatus> parsed = new ArrayList<>();
            for (int i = 0; i < statuses.size(); i++) {
                if (statuses.get(i) == null) {
                    continue; // already reported as not a string
                }
                try {
                    parsed.add(MailStatus.valueOf(statuses.get(i)));
                } catch (IllegalArgumentException e) {
                    errors.add(new FieldError("statuses[" + i + "]", "must be one of " + Arrays.toString(MailStatus.values())));
                }
            }
            filter.setStatuses(parsed);
        }
        filter.setRecipient(in.string("recipient"));
        filter.setSender(in.string("sender"));
        filter.setEnqueuedBy(in.string("enqueuedBy"));
        filter.setCampaign(in.string("campaign"));
        filter.setTag(in.string("tag"));
        filter.setReference(in.string("reference"));
        filter.setErrorText(in.string("errorText"));
        filter.setSubject(in.string("subject"));
        filter.setAccount(in.string("account"));
        filter.setCreatedFrom(in.instant("createdFrom"));
        filter.setCreatedTo(in.instant("createdTo"));
        filter.setBounced(in.bool("bounced"));
        in.refuseUnread("a filter");
        return filter;
    }
}
