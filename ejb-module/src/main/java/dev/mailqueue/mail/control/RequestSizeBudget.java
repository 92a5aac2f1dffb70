package dev.mailqueue.mail.control;

import dev.mailqueue.settings.control.Settings;
import dev.mailqueue.api.Attachment;
import dev.mailqueue.api.FieldError;
import dev.mailqueue.api.InvalidMailException;
import dev.mailqueue.api.MailRequest;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * The total-size budget of one enqueue call, whoever makes it: {@code mailqueue.http.max-request-bytes}
 * (bytes), the limit the REST API puts on a request body, applies to an EJB call (local or
 * remote: over IIOP a batch of 10,000 mails of 12 MiB each would otherwise pass, since each mail is valid
 * on its own). A call is measured as the JSON the REST API would have read for it, without serialising
 * anything: the characters of every text field, list item, header name and value, each with its member
 * name, quotes and colon, and attachments as base64 (4 characters for every 3 bytes, RFC 4648 §4, padding not counted). Commas,
 * braces, JSON escapes, and the few short scalar fields (priority, times, perRecipient) are left out, and a
 * character counts as one byte even where UTF-8 takes more, so the estimate never exceeds the smallest
 * JSON of the same request: a request the REST API accepted passes here too.
 *
 * <p>The count stops as soon as the budget is passed, so its cost is bounded by the budget, whatever the
 * request holds, and it cannot overflow (every addition is at most about 2.9 billion, to a total of at
 * most the budget).
 */
@ApplicationScoped
public class RequestSizeBudget {

    /** The setting, as named in errors. */
    public static final String SETTING = "mailqueue.http.max-request-bytes";

    long maxRequestBytes;

    /**
     * @param maxRequestBytes the budget, bytes, 1 or more
     * @return a budget outside a container (tests)
     * @throws IllegalStateException naming the setting when the budget is less than 1
     */
    static RequestSizeBudget of(long maxRequestBytes) {
        RequestSizeBudget budget = new RequestSizeBudget();
        budget.read(Settings.of(Map.of(SETTING, Long.toString(maxRequestBytes))));
        return budget;
    }

    @PostConstruct
    void read() {
        read(Settings.fromConfig(RequestSizeBudget.class));
    }

    private void read(Settings settings) {
        maxRequestBytes = settings.whole(SETTING, 1, Long.MAX_VALUE);
    }

    /**
     * @param request one mail, as {@code POST /api/mails} would carry it; null passes (the validator refuses it)
     * @throws InvalidMailException naming the field at which the request passes the budget, e.g.
     *                              {@code attachments}
     */
    public void check(MailRequest request) throws InvalidMailException {
        Tally tally = new Tally(maxRequestBytes);
        if (request != null) {
            count(request, "", tally);
        }
        tally.refuseIfOver();
    }

    /**
     * @param messageBytes the size of a raw mail's message, bytes (its envelope and options are a few hundred
     *                     bytes at most, and not counted)
     * @throws InvalidMailException naming {@code message} when it is larger than the budget
     */
    public void checkRaw(long messageBytes) throws InvalidMailException {
        if (messageBytes > maxRequestBytes) {
            throw new InvalidMailException(List.of(new FieldError("message", "is " + messageBytes
                    + " bytes, more than the " + maxRequestBytes + " bytes this server takes in one request ("
                    + SETTING + ")")));
        }
    }

    /**
     * @param requests the mails of one bulk enqueue, as {@code POST /api/mails/batch} would carry them; null
     *                 passes (the validator refuses it)
     * @throws InvalidMailException naming the field at which the batch passes the budget, e.g.
     *                              {@code [3].attachments}, and none of the mails is queued
     */
    public void checkAll(List<MailRequest> requests) throws InvalidMailException {
        Tally tally = new Tally(maxRequestBytes);
        if (requests != null) {
            for (int i = 0; i < requests.size() && !tally.over(); i++) {
                MailRequest request = requests.get(i);
                if (request != null) {
                    count(request, "[" + i + "].", tally);
                }
            }
        }
        tally.refuseIfOver();
    }

    /**
     * @param request a mail
     * @return the estimate of its JSON, bytes (a lower bound of the JSON's size), counted in full
     */
    static long estimate(MailRequest request) {
        Tally tally = new Tally(Long.MAX_VALUE);
        count(request, "", tally);
        return tally.total;
    }

    /** Adds the request's fields one by one; stops at the first that passes the budget. */
    private static void count(MailRequest r, String prefix, Tally t) {
        boolean within = t.text(prefix, "from", r.getFrom())
                && t.text(prefix, "fromName", r.getFromName())
                && t.text(prefix, "replyTo", r.getReplyTo())
                && t.texts(prefix, "to", r.getTo())
                && t.texts(prefix, "cc", r.getCc())
                && t.texts(prefix, "bcc", r.getBcc())
                && t.text(prefix, "subject", r.getSubject())
                && t.text(prefix, "text", r.getText())
                && t.text(prefix, "html", r.getHtml())
                && t.template(prefix, r.getTemplate())
                && t.headers(prefix, r.getHeaders())
                && t.attachments(prefix, r.getAttachments())
                && t.text(prefix, "account", r.getAccount())
                && t.text(prefix, "unsubscribeList", r.getUnsubscribeList())
                && t.text(prefix, "reference", r.getReference())
                && t.text(prefix, "campaign", r.getCampaign());
        if (within) {
            t.texts(prefix, "tags", r.getTags());
        }
    }

    /** A running total that notes the field at which it passed the budget, and then takes nothing more. */
    private static final class Tally {

        private final long budget;
        private long total;
        private String overAt;

        Tally(long budget) {
            this.budget = budget;
        }

        boolean over() {
            return overAt != null;
        }

        /** @return true while the total is within the budget */
        private boolean add(String field, long chars) {
            if (overAt != null) {
                return false;
            }
            total += chars;
            if (total > budget) {
                overAt = field;
                return false;
            }
            return true;
        }

        /** {@code "name":"value"} */
        boolean text(String prefix, String name, String value) {
            return value == null || add(prefix + name, name.length() + 5L + value.length());
        }

        /** {@code "name":["a","b"]} */
        boolean texts(String prefix, String name, Collection<String> values) {
            if (values == null || values.isEmpty()) {
                return true;
            }
            if (!add(prefix + name, name.length() + 5L)) {
                return false;
            }
            for (String value : values) {
                if (value != null && !add(prefix + name, value.length() + 2L)) {
                    return false;
                }
            }
            return true;
        }

        /** {@code "headers":{"Name":"value"}} */
        boolean headers(String prefix, Map<String, String> headers) {
            if (headers == null || headers.isEmpty()) {
                return true;
            }
            if (!add(prefix + "headers", "headers".length() + 5L)) {
                return false;
            }
            for (Map.Entry<String, String> header : headers.entrySet()) {
                long name = header.getKey() == null ? 0 : header.getKey().length() + 3L;
                long value = header.getValue() == null ? 0 : header.getValue().length() + 2L;
                if (!add(prefix + "headers", name + value)) {
                    return false;
                }
            }
            return true;
        }

        /** {@code "attachments":[{"filename":"..","contentType":"..","content":"base64"}]} */
        boolean attachments(String prefix, List<Attachment> attachments) {
            if (attachments == null || attachments.isEmpty()) {
                return true;
            }
            String field = prefix + "attachments";
            if (!add(field, "attachments".length() + 5L)) {
                return false;
            }
            for (Attachment a : attachments) {
                if (a == null) {
                    continue;
                }
                long chars = 2; // {}
                chars += a.getFilename() == null ? 0 : "filename".length() + 5L + a.getFilename().length();
                chars += a.getContentType() == null ? 0 : "contentType".length() + 5L + a.getContentType().length();
                chars += a.getContent() == null ? 0 : "content".length() + 5L + base64Length(a.getContent().length);
                if (!add(field, chars)) {
                    return false;
                }
            }
            return true;
        }

        /** {@code "template":{"name":"..","locale":"..","variables":{...}}}, the variables as JSON would write them */
        boolean template(String prefix, dev.mailqueue.api.TemplateRef template) {
            if (template == null) {
                return true;
            }
            String field = prefix + "template";
            long chars = "template".length() + 5L;
            chars += template.getName() == null ? 0 : "name".length() + 5L + template.getName().length();
            chars += template.getLocale() == null ? 0 : "locale".length() + 5L + template.getLocale().length();
            return add(field, chars) && value(field, template.getVariables(), 0);
        }

        /** Adds a variable's JSON size; a value nested deeper than JSON parsers take counts as over the budget. */
        private boolean value(String field, Object value, int depth) {
            if (depth > 64) {
                return add(field, budget + 1);
            }
            if (value instanceof Map<?, ?> map) {
                if (!add(field, 2)) {
                    return false;
                }
                for (Map.Entry<?, ?> e : map.entrySet()) {
                    if (!add(field, String.valueOf(e.getKey()).length() + 4L) || !value(field, e.getValue(), depth + 1)) {
                        return false;
                    }
                }
                return true;
            }
            if (value instanceof Collection<?> list) {
                if (!add(field, 2)) {
                    return false;
                }
                for (Object element : list) {
                    if (!add(field, 1) || !value(field, element, depth + 1)) {
                        return false;
                    }
                }
                return true;
            }
            return add(field, value == null ? 4 : String.valueOf(value).length() + 2L);
        }

        void refuseIfOver() throws InvalidMailException {
            if (overAt != null) {
                throw new InvalidMailException(List.of(new FieldError(overAt, "makes the request larger than " + budget
                        + " bytes as JSON (" + SETTING + ", the limit of one request, also over the EJB interface):"
                        + " send fewer or smaller mails per call")));
            }
        }
    }

    /** @return the characters of {@code bytes} bytes in base64 without padding (RFC 4648 §4 and §3.2) */
    static long base64Length(long bytes) {
        return (bytes * 4 + 2) / 3;
    }
}
