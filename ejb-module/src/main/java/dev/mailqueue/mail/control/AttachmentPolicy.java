package dev.mailqueue.mail.control;

import dev.mailqueue.settings.control.Settings;
import dev.mailqueue.api.Attachment;
import dev.mailqueue.api.FieldError;
import dev.mailqueue.api.MailLimits;
import dev.mailqueue.api.validation.PlainTextValidator;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.mail.internet.ContentType;
import jakarta.mail.internet.ParseException;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The rules for attachments: how many, how large together, which file names and MIME types. The
 * limits are configuration (MicroProfile Config, i.e. server.xml variables):
 * <ul>
 *   <li>{@code mailqueue.attachments.max-count}, default 20 files a mail;</li>
 *   <li>{@code mailqueue.attachments.max-total-bytes}, default 10,485,760 (10 MiB) of file content a
 *       mail, before base64: it grows by a third on the wire, so a full mail is about 14 MB, under
 *       the 20 to 25 MB many providers accept (Gmail: 25 MB a message);</li>
 *   <li>{@code mailqueue.attachments.blocked-extensions}, default {@link #GMAIL_BLOCKED}: the file
 *       types Gmail refuses to send or receive (support.google.com/mail/answer/6590), so a mail the
 *       queue accepts is not bounced for its attachment by the largest mailbox provider.</li>
 * </ul>
 * The extension is what follows the last dot, after trailing dots and spaces (which Windows drops)
 * are removed, compared without regard to case: {@code invoice.pdf.EXE.} is an {@code exe}. So that
 * the checked name is the name a recipient sees, a file name may not hold invisible formatting
 * characters (Unicode category Cf: bidirectional overrides, zero-width spaces) and a content type may
 * not carry a {@code name} or {@code filename} parameter. Archives are not opened: an executable
 * inside a zip passes here (Gmail would still refuse it).
 */
@ApplicationScoped
public class AttachmentPolicy {

    /** Gmail's blocked file types (support.google.com/mail/answer/6590), the default block list. */
    public static final String GMAIL_BLOCKED = "ade,adp,apk,appx,appxbundle,bat,cab,chm,cmd,com,cpl,diagcab,"
            + "diagcfg,diagpkg,dll,dmg,ex,ex_,exe,hta,img,ins,iso,isp,jar,jnlp,js,jse,lib,lnk,mde,mjs,msc,msi,"
            + "msix,msixbundle,msp,mst,nsh,pif,ps1,scr,sct,shb,sys,vb,vbe,vbs,vhd,vxd,wsc,wsf,wsh,xll";

    /** The MIME type of an attachment that names none (RFC 2046 §4.5.1: arbitrary binary data). */
    public static final String DEFAULT_CONTENT_TYPE = "application/octet-stream";

    int maxCount;
    long maxTotalBytes;
    private Set<String> blocked;

    /**
     * @return a policy with these limits, outside a container (tests)
     * @throws IllegalStateException naming the setting when a limit is negative
     */
    static AttachmentPolicy of(int maxCount, long maxTotalBytes, String blockedExtensions) {
        AttachmentPolicy policy = new AttachmentPolicy();
        policy.read(Settings.of(java.util.Map.of("mailqueue.attachments.max-count", Integer.toString(maxCount),
                "mailqueue.attachments.max-total-bytes", Long.toString(maxTotalBytes),
                "mailqueue.attachments.blocked-extensions", blockedExtensions)));
        return policy;
    }

    @PostConstruct
    void read() {
        read(Settings.fromConfig(AttachmentPolicy.class));
    }

    /** Reads the limits; the block list is {@link #GMAIL_BLOCKED} when its setting is not set. */
    private void read(Settings settings) {
        maxCount = (int) settings.whole("mailqueue.attachments.max-count", 0, Integer.MAX_VALUE);
        maxTotalBytes = settings.whole("mailqueue.attachments.max-total-bytes", 0, Long.MAX_VALUE);
        blocked = parseExtensions(settings.optional("mailqueue.attachments.blocked-extensions").orElse(GMAIL_BLOCKED));
    }

    /**
     * @param attachments the attachments of one request, may be null
     * @return the broken rules, named {@code attachments} (count, total size) or
     *         {@code attachments[i].filename}, {@code .contentType}, {@code .content}; empty when all pass
     */
    public List<FieldError> check(List<Attachment> attachments) {
        List<FieldError> errors = new ArrayList<>();
        if (attachments == null || attachments.isEmpty()) {
            return errors;
        }
        if (attachments.size() > maxCount) {
            errors.add(new FieldError("attachments",
                    "at most " + maxCount + " attachments, got " + attachments.size()));
        }
        long total = 0;
        for (int i = 0; i < attachments.size(); i++) {
            String field = "attachments[" + i + "]";
            Attachment attachment = attachments.get(i);
            if (attachment == null) {
                errors.add(new FieldError(field, "must not be null"));
                continue;
            }
            checkFilename(field + ".filename", attachment.getFilename(), errors);
            checkContentType(field + ".contentType", attachment.getContentType(), errors);
            if (attachment.getContent() == null) {
                errors.add(new FieldError(field + ".content", "is required (base64 in JSON)"));
            } else {
                total += attachment.getContent().length;
            }
        }
        if (total > maxTotalBytes) {
            errors.add(new FieldError("attachments", "together " + total + " bytes, more than the limit of "
                    + maxTotalBytes + " bytes"));
        }
        return errors;
    }

    /**
     * @param contentType a validated content type, may be null
     * @return the type to store: the given one, or {@link #DEFAULT_CONTENT_TYPE} when none was named
     */
    public static String contentTypeOrDefault(String contentType) {
        return contentType == null || contentType.isBlank() ? DEFAULT_CONTENT_TYPE : contentType.strip();
    }

    private void checkFilename(String field, String filename, List<FieldError> errors) {
        if (filename == null || filename.isBlank()) {
            errors.add(new FieldError(field, "is required"));
            return;
        }
        if (filename.length() > MailLimits.FILENAME_CHARS) {
            errors.add(new FieldError(field, "must be at most " + MailLimits.FILENAME_CHARS + " characters"));
        }
        if (filename.chars().anyMatch(c -> c < 0x20 || c == 0x7f || c == '/' || c == '\\')) {
            errors.add(new FieldError(field, "must not contain control characters (such as CR or LF), / or \\"));
        } else if (filename.chars().anyMatch(c -> Character.getType(c) == Character.FORMAT)) {
            // U+202E RIGHT-TO-LEFT OVERRIDE shows "invoice\u202Efdp.exe" as "invoiceexe.pdf": the name would lie.
            errors.add(new FieldError(field, "must not contain invisible formatting characters (such as"
                    + " right-to-left overrides or zero-width spaces), which can disguise a file's type"));
        } else if (PlainTextValidator.problemWith(filename, false) != null) {
            errors.add(new FieldError(field, PlainTextValidator.problemWith(filename, false)));
        }
        String extension = extension(filename);
        if (extension != null && blocked.contains(extension)) {
            errors.add(new FieldError(field, "has the blocked file type ." + extension
                    + " (executable content; see mailqueue.attachments.blocked-extensions)"));
        }
    }

    private static void checkContentType(String field, String contentType, List<FieldError> errors) {
        if (contentType == null || contentType.isBlank()) {
            return;
        }
        if (contentType.length() > MailLimits.CONTENT_TYPE_CHARS) {
            errors.add(new FieldError(field, "must be at most " + MailLimits.CONTENT_TYPE_CHARS + " characters"));
            return;
        }
        if (contentType.chars().anyMatch(c -> c < 0x20 || c >= 0x7f)) {
            errors.add(new FieldError(field, "must be printable ASCII, without CR or LF"));
            return;
        }
        try {
            ContentType type = new ContentType(contentType.strip());
            String primary = type.getPrimaryType().toLowerCase(Locale.ROOT);
            if (primary.equals("multipart") || primary.equals("message")) {
                errors.add(new FieldError(field, "must not be a multipart or message type: the queue builds the structure"));
            }
            if (namesAFile(type)) {
                errors.add(new FieldError(field, "must not have a parameter that names a file (name, filename):"
                        + " the file's name is the attachment's filename, which the blocked types are checked on"));
            }
        } catch (ParseException e) {
            errors.add(new FieldError(field, "is not a MIME type such as application/pdf (RFC 2045 5.1)"));
        }
    }

    /**
     * A parameter {@code name} (RFC 2046 §4.5.1) or {@code filename} in a Content-Type is read by many
     * mail programs as the file's name, and would get around the blocked-extension rule; also in RFC 2231
     * form ({@code name*}, {@code filename*0*}).
     *
     * @param type a parsed content type
     * @return whether it has such a parameter
     */
    static boolean namesAFile(ContentType type) {
        if (type.getParameterList() == null) {
            return false;
        }
        for (var names = type.getParameterList().getNames(); names.hasMoreElements(); ) {
            String name = names.nextElement().toLowerCase(Locale.ROOT);
            int star = name.indexOf('*');
            String base = star < 0 ? name : name.substring(0, star);
            if (base.equals("name") || base.equals("filename")) {
                return true;
            }
        }
        return false;
    }

    /**
     * @param filename a file name
     * @return its extension in lower case without the dot, after trailing dots and spaces are
     *         dropped; null when it has none
     */
    static String extension(String filename) {
        String name = filename.strip();
        int end = name.length();
        while (end > 0 && (name.charAt(end - 1) == '.' || name.charAt(end - 1) == ' ')) {
            end--;
        }
        name = name.substring(0, end);
        int dot = name.lastIndexOf('.');
        return dot < 0 || dot == name.length() - 1 ? null : name.substring(dot + 1).toLowerCase(Locale.ROOT);
    }

    /**
     * @param list extensions separated by commas or spaces, with or without leading dots; may be blank
     * @return them in lower case without dots
     */
    static Set<String> parseExtensions(String list) {
        if (list == null || list.isBlank()) {
            return Set.of();
        }
        return Arrays.stream(list.split("[,\\s]+"))
                .map(String::strip)
                .map(e -> e.startsWith(".") ? e.substring(1) : e)
                .filter(e -> !e.isEmpty())
                .map(e -> e.toLowerCase(Locale.ROOT))
                .collect(Collectors.toUnmodifiableSet());
    }
}
