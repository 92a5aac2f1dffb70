package dev.mailqueue.http.control;

import dev.mailqueue.api.Attachment;
import dev.mailqueue.api.FieldError;
import dev.mailqueue.api.MailLimits;
import dev.mailqueue.api.MailRequest;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Binds the JSON of {@code POST /api/mails} (one object) and {@code POST /api/mails/batch} (an array of
 * at most {@value MailLimits#BATCH} of them) to {@link MailRequest}s with exact types
 * ({@link JsonFields}): strings from strings, {@code priority} a whole number from 0 to 9,
 * {@code perRecipient} a boolean; {@code from} and {@code replyTo} an address, {@code to}/{@code cc}/{@code bcc}
 * arrays of addresses, an address being a string ({@code "Doe, Jane" <jane@example.com>} or bare) or an object
 * {@code {"name": "Doe, Jane", "address": "jane@example.com"}} ({@link JsonFields#mailbox});
 * {@code notBefore}/{@code expiresAt} ISO-8601 instants, {@code headers} an object of strings,
 * {@code attachments} an array of {@code {filename, contentType, content}} with base64 content,
 * {@code account}, {@code unsubscribeList}, {@code reference} and {@code campaign} strings,
 * {@code tags} an array of strings, {@code template} an object {@code {name, locale, variables}} whose
 * variables are any JSON object; no
 * other member. The queue's own rules (addresses, lengths, characters, dates) come after, in the
 * queue; this is only about the shape.
 */
public final class MailRequestJson {

    private MailRequestJson() {
    }

    /**
     * @param json   the body's value
     * @param errors where shape errors are added, named as the JSON names the field
     * @return the mail; meaningless when {@code errors} is not empty afterwards
     */
    public static MailRequest mail(JsonValue json, List<FieldError> errors) {
        return mail(json, "", errors);
    }

    /**
     * @param json   the body's value: an array of mail objects
     * @param errors where shape errors are added, named {@code [index].field}
     * @return the mails in order; meaningless when {@code errors} is not empty afterwards
     */
    public static List<MailRequest> mails(JsonValue json, List<FieldError> errors) {
        if (!(json instanceof JsonArray array)) {
            errors.add(new FieldError("", "must be a JSON array of mails"));
            return List.of();
        }
        if (array.size() > MailLimits.BATCH) {
            errors.add(new FieldError("", "at most " + MailLimits.BATCH + " mails per batch, got " + array.size()));
            return List.of();
        }
        List<MailRequest> mails = new ArrayList<>(array.size());
        for (int i = 0; i < array.size(); i++) {
            mails.add(mail(array.get(i), "[" + i + "]", errors));
        }
        return mails;
    }

    private static MailRequest mail(JsonValue json, String path, List<FieldError> errors) {
        MailRequest mail = new MailRequest();
        if (!(json instanceof JsonObject object)) {
            errors.add(new FieldError(path, "must be a JSON object (a mail)"));
            return mail;
        }
        JsonFields in = new JsonFields(object, path, errors);
        mail.setFrom(in.mailbox("from"));
        mail.setFromName(in.string("fromName"));
        mail.setReplyTo(in.mailbox("replyTo"));
        mail.setTo(orEmpty(in.mailboxes("to")));
        mail.setCc(orEmpty(in.mailboxes("cc")));
        mail.setBcc(orEmpty(in.mailboxes("bcc")));
        mail.setSubject(in.string("subject"));
        mail.setText(in.string("text"));
        mail.setHtml(in.string("html"));
        JsonFields template = in.object("template");
        if (template != null) {
            mail.setTemplate(new dev.mailqueue.api.TemplateRef(template.string("name"), template.string("locale"),
                    template.data("variables")));
            template.refuseUnread("a template reference");
        }
        Long priority = in.whole("priority", MailLimits.PRIORITY_MIN, MailLimits.PRIORITY_MAX);
        mail.setPriority(priority == null ? null : priority.intValue());
        Instant notBefore = in.instant("notBefore");
        mail.setNotBefore(notBefore);
        mail.setExpiresAt(in.instant("expiresAt"));
        Boolean perRecipient = in.bool("perRecipient");
        mail.setPerRecipient(perRecipient != null && perRecipient);
        mail.setAccount(in.string("account"));
        mail.setUnsubscribeList(in.string("unsubscribeList"));
        mail.setReference(in.string("reference"));
        mail.setCampaign(in.string("campaign"));
        mail.setTags(orEmpty(in.strings("tags")));
        var headers = in.stringMap("headers");
        if (headers != null) {
            mail.setHeaders(headers);
        }
        List<JsonFields> attachments = in.objects("attachments");
        if (attachments != null) {
            List<Attachment> files = new ArrayList<>(attachments.size());
            for (JsonFields file : attachments) {
                if (file == null) {
                    files.add(null);
                    continue;
                }
                files.add(new Attachment(file.string("filename"), file.string("contentType"), file.base64("content")));
                file.refuseUnread("an attachment");
            }
            mail.setAttachments(files);
        }
        in.refuseUnread("a mail");
        return mail;
    }

    private static List<String> orEmpty(List<String> list) {
        return list == null ? new ArrayList<>() : list;
    }
}
