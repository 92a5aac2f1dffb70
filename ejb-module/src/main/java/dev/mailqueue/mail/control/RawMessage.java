package dev.mailqueue.mail.control;

import dev.mailqueue.api.FieldError;
import dev.mailqueue.api.InvalidMailException;
import dev.mailqueue.api.MailLimits;
import dev.mailqueue.mime.control.HeaderLimits;
import dev.mailqueue.mime.control.HeaderSection;
import dev.mailqueue.mime.control.MalformedHeaderException;
import jakarta.mail.internet.AddressException;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MailDateFormat;
import jakarta.mail.internet.MimeUtility;

import java.io.ByteArrayOutputStream;
import java.io.UnsupportedEncodingException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TimeZone;
import java.util.regex.Pattern;

/**
 * A finished RFC 5322 message handed to the queue (raw MIME), checked against the grammar the queue relies on
 * and read for what the queue needs of it: the From, Sender, To, Cc and Bcc addresses, the Message-ID and the
 * Subject. The message is kept as bytes and never re-encoded: {@link #stored} gives it as it is sent, the
 * {@code Bcc} field left out, {@code Message-ID} and {@code Date} put first where it lacks them, and every line
 * of the header section ended with CRLF.
 *
 * <p>Refused, each with a {@link FieldError} naming {@code message} or the header field
 * ({@code message.From}):
 * <ul>
 *   <li>a line over 998 octets without its CRLF (RFC 5322 §2.1.1; RFC 5321 §4.5.3.1.6 allows 1,000 with
 *       it), or a NUL octet (RFC 5322 §2.3, RFC 6152: not even 8BITMIME carries one);</li>
 *   <li>a header section that breaks {@link HeaderSection}'s grammar, the one the claimer reads it with at
 *       sending: a CR not followed by LF, a line that is neither {@code name: value} nor the folded continuation
 *       of one, more fields or bytes than {@link HeaderLimits} allows;</li>
 *   <li>a header field whose non-ASCII octets are not UTF-8 (RFC 6532 §3.2); one that is UTF-8 makes the
 *       message one that is sent only with SMTPUTF8 ({@link #utf8Headers()});</li>
 *   <li>no From field, or one without an address, or several addresses in From without a Sender field, or a
 *       field that RFC 5322 §3.6 allows once (Date, From, Sender, Reply-To, To, Cc, Bcc, Message-ID,
 *       In-Reply-To, References, Subject) given twice;</li>
 *   <li>an address list that does not parse, and a Message-ID that is not an RFC 5322 §3.6.4 msg-id of at most
 *       255 characters ({@code <left@right>}, printable ASCII).</li>
 * </ul>
 * The work is linear in the message's size: one pass over its bytes, and the header fields parsed once.
 */
public final class RawMessage {

    /** RFC 5322 §2.1.1: a line is at most 998 characters without its CRLF. */
    public static final int LINE_OCTETS = HeaderSection.LINE_OCTETS;

    /** The Message-ID column: 255 characters with the angle brackets. */
    static final int MESSAGE_ID_CHARS = 255;

    /** RFC 5322 §3.6: the fields a message may have at most once. */
    private static final Set<String> ONCE = Set.of("date", "from", "sender", "reply-to", "to", "cc", "bcc",
            "message-id", "in-reply-to", "references", "subject");

    /** RFC 5322 §3.6.4 msg-id, without comments or folding: id-left and id-right of printable ASCII. */
    private static final Pattern MSG_ID = Pattern.compile("<[\\x21-\\x3b\\x3d\\x3f-\\x7e&&[^@]]+@[\\x21-\\x3b\\x3d\\x3f-\\x7e&&[^@]]+>");

    private static final byte[] CRLF = {'\r', '\n'};

    /**
     * One header field as it came.
     *
     * @param name  the field name as written
     * @param place where it is in the message
     * @param value its value unfolded (RFC 5322 §2.2.3), decoded as UTF-8, without the leading blank
     */
    record Field(String name, HeaderSection.Field place, String value) {

        boolean is(String other) {
            return name.equalsIgnoreCase(other);
        }
    }

    private final byte[] source;
    private final HeaderSection section;
    private final List<Field> fields;
    private final boolean utf8Headers;

    private RawMessage(byte[] source, HeaderSection section, List<Field> fields, boolean utf8Headers) {
        this.source = source;
        this.section = section;
        this.fields = fields;
        this.utf8Headers = utf8Headers;
    }

    /**
     * @param source the message's bytes, not null
     * @param limits the caps on its header section
     * @return the message, checked
     * @throws InvalidMailException naming {@code message} or the header field at fault (the first fault of the
     *                              header section and every fault of the required fields)
     */
    public static RawMessage parse(byte[] source, HeaderLimits limits) throws InvalidMailException {
        if (source.length == 0) {
            throw invalid("message", "is empty: an RFC 5322 message (header fields, an empty line, the body) is required");
        }
        HeaderSection section;
        try {
            section = HeaderSection.read(source, limits);
        } catch (MalformedHeaderException e) {
            throw invalid("message", e.getMessage());
        }
        List<Field> fields = new ArrayList<>(section.fields().size());
        boolean utf8 = false;
        for (HeaderSection.Field place : section.fields()) {
            String name = section.name(place);
            String raw;
            try {
                raw = section.rawValue(place);
            } catch (MalformedHeaderException e) {
                throw invalid("message." + name, e.getMessage());
            }
            fields.add(new Field(name, place, MimeUtility.unfold(raw).strip()));
            utf8 |= !section.isAscii(place);
        }
        checkBody(source, section);
        RawMessage message = new RawMessage(source, section, List.copyOf(fields), utf8);
        message.checkFields();
        return message;
    }

    /** Checks the body's lines: at most {@value #LINE_OCTETS} octets without the line end, and no NUL. */
    private static void checkBody(byte[] source, HeaderSection section) throws InvalidMailException {
        int line = 0;
        for (int i = 0; i < section.bodyStart(); i++) {
            line += source[i] == '\n' ? 1 : 0;
        }
        int pos = section.bodyStart();
        while (pos < source.length) {
            line++;
            int lf = indexOf(source, (byte) '\n', pos);
            int next = lf < 0 ? source.length : lf + 1;
            int end = lf < 0 ? source.length : lf > pos && source[lf - 1] == '\r' ? lf - 1 : lf;
            if (end - pos > LINE_OCTETS) {
                throw invalid("message", "line " + line + " is " + (end - pos) + " octets long; at most "
                        + LINE_OCTETS + " are allowed without the CRLF (RFC 5322 2.1.1)");
            }
            if (indexOf(source, (byte) 0, pos, end) >= 0) {
                throw invalid("message", "line " + line + " holds a NUL octet, which no message may carry (RFC 5322 2.3)");
            }
            pos = next;
        }
    }

    /** Checks the fields of RFC 5322 §3.6 the queue relies on. */
    private void checkFields() throws InvalidMailException {
        List<FieldError> errors = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (Field field : fields) {
            String key = field.name().toLowerCase(Locale.ROOT);
            if (ONCE.contains(key) && !seen.add(key)) {
                errors.add(new FieldError("message." + field.name(), "appears more than once; RFC 5322 3.6 allows it once"));
            }
        }
        if (!errors.isEmpty()) {
            throw new InvalidMailException(errors);
        }
        List<InternetAddress> from = addresses("From", errors);
        List<InternetAddress> sender = addresses("Sender", errors);
        if (errors.isEmpty() && from.isEmpty()) {
            errors.add(new FieldError("message.From", "is required: a message names its author (RFC 5322 3.6.2)"));
        } else if (errors.isEmpty() && from.size() > 1 && sender.isEmpty()) {
            errors.add(new FieldError("message.Sender", "is required when From names more than one author"
                    + " (RFC 5322 3.6.2)"));
        }
        if (sender.size() > 1) {
            errors.add(new FieldError("message.Sender", "must be one address (RFC 5322 3.6.2)"));
        }
        for (String list : List.of("To", "Cc", "Bcc", "Reply-To")) {
            addresses(list, errors);
        }
        value("Message-ID").ifPresent(id -> {
            if (id.length() > MESSAGE_ID_CHARS || !MSG_ID.matcher(id).matches()) {
                errors.add(new FieldError("message.Message-ID", "is not one RFC 5322 3.6.4 msg-id (<left@right>, printable"
                        + " ASCII, at most " + MESSAGE_ID_CHARS + " characters)"));
            }
        });
        if (!errors.isEmpty()) {
            throw new InvalidMailException(errors);
        }
    }

    /**
     * @param name   an address field
     * @param errors where a field that does not parse is named
     * @return its mailboxes, a group's members in place of the group; empty when it is absent or does not parse
     */
    private List<InternetAddress> addresses(String name, List<FieldError> errors) {
        Optional<String> value = value(name);
        if (value.isEmpty()) {
            return List.of();
        }
        try {
            List<InternetAddress> result = new ArrayList<>();
            for (InternetAddress address : InternetAddress.parseHeader(value.get(), true)) {
                if (address.isGroup()) {
                    result.addAll(List.of(address.getGroup(true)));
                } else {
                    result.add(address);
                }
            }
            return result;
        } catch (AddressException e) {
            errors.add(new FieldError("message." + name, "is not an RFC 5322 address list: " + e.getMessage()));
            return List.of();
        }
    }

    /** @return the value of the field, or empty when the message has none */
    private Optional<String> value(String name) {
        return fields.stream().filter(f -> f.is(name)).map(Field::value).findFirst();
    }

    /** @return the addresses of the From field (at least one) */
    public List<InternetAddress> from() {
        return addresses("From", new ArrayList<>());
    }

    /** @return the address of the Sender field, or empty */
    public Optional<InternetAddress> sender() {
        return addresses("Sender", new ArrayList<>()).stream().findFirst();
    }

    /**
     * @param name {@code To}, {@code Cc} or {@code Bcc}
     * @return the bare addresses of the field, in order; empty when it is absent
     */
    public List<String> recipients(String name) {
        return addresses(name, new ArrayList<>()).stream().map(InternetAddress::getAddress).toList();
    }

    /** @return the message's own Message-ID, or empty when it has none */
    public Optional<String> messageId() {
        return value("Message-ID");
    }

    /**
     * @return the Subject decoded (RFC 2047), at most {@link MailLimits#SUBJECT_CHARS} characters, for the
     *         queue's views; null when it has none
     */
    public String subject() {
        return value("Subject").map(s -> {
            String decoded;
            try {
                decoded = MimeUtility.decodeText(s);
            } catch (UnsupportedEncodingException e) {
                decoded = s; // an unknown charset: shown as written
            }
            return decoded.length() > MailLimits.SUBJECT_CHARS ? decoded.substring(0, MailLimits.SUBJECT_CHARS) : decoded;
        }).orElse(null);
    }

    /**
     * @return the offset of its first header field that is not a {@code Received} trace field (RFC 5321 §4.4: each
     *         relay puts its own in front), or of the body when all are; 0 when it begins with another field
     */
    public int traceEnd() {
        for (Field field : fields) {
            if (!field.is("Received")) {
                return field.place().start();
            }
        }
        return section.bodyStart();
    }

    /** @return its header fields, in their order */
    List<Field> fields() {
        return fields;
    }

    /** @return whether a field of the given name is present */
    public boolean has(String name) {
        return fields.stream().anyMatch(f -> f.is(name));
    }

    /** @return true when a header field holds UTF-8 (RFC 6532): the message needs SMTPUTF8 (RFC 6531) */
    public boolean utf8Headers() {
        return utf8Headers;
    }

    /**
     * @param messageId the Message-ID to add when the message has none, with angle brackets
     * @param date      the origination date to add when it has none (RFC 5322 §3.6.1)
     * @return the message as the queue stores and sends it: the added fields first, then its own fields in
     *         their order and octets without {@code Bcc} (RFC 5322 §3.6.3: the queue sends the blind copies
     *         through the envelope), each line ended with CRLF (one that came with LF alone gets its CR), the empty
     *         line, then the body as it came
     */
    public byte[] stored(String messageId, Instant date) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(source.length + 160 + section.bodyStart() / 2); // room for a CR per header line
        if (!has("Message-ID")) {
            out.writeBytes(("Message-ID: " + messageId).getBytes(StandardCharsets.US_ASCII));
            out.writeBytes(CRLF);
        }
        if (!has("Date")) {
            MailDateFormat format = new MailDateFormat();
            format.setTimeZone(TimeZone.getTimeZone("UTC")); // the same on every server
            out.writeBytes(("Date: " + format.format(Date.from(date))).getBytes(StandardCharsets.US_ASCII));
            out.writeBytes(CRLF);
        }
        for (Field field : fields) {
            if (!field.is("Bcc")) {
                section.writeField(field.place(), out);
            }
        }
        if (section.ended()) {
            out.writeBytes(CRLF);
        }
        out.write(source, section.bodyStart(), source.length - section.bodyStart());
        return out.toByteArray();
    }

    /** @return the offset of the body in the message as it came (its length when it has none) */
    int bodyStart() {
        return section.bodyStart();
    }

    private static int indexOf(byte[] source, byte b, int from) {
        return indexOf(source, b, from, source.length);
    }

    private static int indexOf(byte[] source, byte b, int from, int to) {
        for (int i = from; i < to; i++) {
            if (source[i] == b) {
                return i;
            }
        }
        return -1;
    }

    private static InvalidMailException invalid(String field, String reason) {
        return new InvalidMailException(List.of(new FieldError(field, reason)));
    }
}
