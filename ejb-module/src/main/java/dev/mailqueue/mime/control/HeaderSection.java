package dev.mailqueue.mime.control;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The header section of a raw message as the queue reads it, the one definition of a header line that the check at
 * enqueue and the composition at sending share (RFC 5322 §2.1 and §2.2):
 * <ul>
 *   <li>a line ends at LF, with the CR before it if there is one; a CR anywhere else in the header section is a
 *       fault (RFC 5322 §2.2: CR and LF occur in a header field only together, as CRLF). Jakarta Mail's
 *       {@code InternetHeaders} and many receiving servers end a line at a bare CR too, so a bare CR would hide a
 *       field from one reader and show it to another: {@code X-Note: a<CR>From: ceo@victim.example} is one field
 *       to a reader that splits on LF and two to one that splits on CR;</li>
 *   <li>a line is at most {@value #LINE_OCTETS} octets without its line end (RFC 5322 §2.1.1) and holds no NUL
 *       (RFC 5322 §2.3);</li>
 *   <li>a line that begins with a space or tab continues the field before it (folding, RFC 5322 §2.2.3); the first
 *       line may not; any other line is {@code name:value} with a name of printable ASCII without a colon
 *       (RFC 5322 §3.6.8, field-name = 1*ftext);</li>
 *   <li>the section ends at the first empty line, which is not part of it; a message without one is all header;</li>
 *   <li>at most {@link HeaderLimits#maxFields()} fields and {@link HeaderLimits#maxBytes()} bytes (line ends
 *       and the empty line included).</li>
 * </ul>
 * Where these hold, a reader that ends lines at CR, LF or CRLF sees the same lines as one that ends them at LF, and
 * {@link #writeField} writes each line with CRLF, so the section the queue stores is the section that goes on the
 * wire. The work is one pass over the section's bytes; a field costs one small record.
 */
public final class HeaderSection {

    /** RFC 5322 §2.1.1: a line is at most 998 characters without its CRLF. */
    public static final int LINE_OCTETS = 998;

    private static final byte CR = '\r';
    private static final byte LF = '\n';

    /**
     * One header field's place in the message.
     *
     * @param start the offset of its first octet
     * @param colon the offset of the colon after its name
     * @param end   the offset after its last line end (or the message's end)
     * @param line  its first line's number, counted from 1
     */
    public record Field(int start, int colon, int end, int line) {
    }

    private final byte[] message;
    private final List<Field> fields;
    private final int bodyStart;
    private final boolean ended;

    private HeaderSection(byte[] message, List<Field> fields, int bodyStart, boolean ended) {
        this.message = message;
        this.fields = fields;
        this.bodyStart = bodyStart;
        this.ended = ended;
    }

    /**
     * @param message a raw message: header fields, an empty line, the body; not null
     * @param limits  the caps on fields and bytes
     * @return its header section, checked
     * @throws MalformedHeaderException naming the first line that breaks a rule above, or the cap passed
     */
    public static HeaderSection read(byte[] message, HeaderLimits limits) throws MalformedHeaderException {
        List<Field> fields = new ArrayList<>();
        int pos = 0;
        int line = 0;
        while (pos < message.length) {
            line++;
            int bound = (int) Math.min(message.length, pos + (long) LINE_OCTETS + 3); // a line one octet too long is measured
            int lf = indexOf(message, LF, pos, bound);
            if (lf < 0 && bound < message.length) {
                throw new MalformedHeaderException("line " + line + " is longer than " + LINE_OCTETS
                        + " octets without its CRLF (RFC 5322 2.1.1)");
            }
            int next = lf < 0 ? message.length : lf + 1;
            int end = lf < 0 ? message.length : lf > pos && message[lf - 1] == CR ? lf - 1 : lf;
            if (end - pos > LINE_OCTETS) {
                throw new MalformedHeaderException("line " + line + " is " + (end - pos) + " octets long; at most "
                        + LINE_OCTETS + " are allowed without the CRLF (RFC 5322 2.1.1)");
            }
            if (next > limits.maxBytes()) {
                throw new MalformedHeaderException("the header section is longer than " + limits.maxBytes()
                        + " bytes at line " + line + " (" + HeaderLimits.MAX_BYTES + ")");
            }
            if (end == pos) {
                return new HeaderSection(message, List.copyOf(fields), next, true);
            }
            for (int i = pos; i < end; i++) {
                if (message[i] == CR) {
                    throw new MalformedHeaderException("line " + line + " holds a CR that is not followed by LF;"
                            + " in a header section CR and LF occur only together, as the line end (RFC 5322 2.2)");
                }
                if (message[i] == 0) {
                    throw new MalformedHeaderException("line " + line + " holds a NUL octet, which no message may"
                            + " carry (RFC 5322 2.3)");
                }
            }
            if (message[pos] == ' ' || message[pos] == '\t') {
                if (fields.isEmpty()) {
                    throw new MalformedHeaderException("line 1 begins with a blank: a message begins with a header"
                            + " field (RFC 5322 2.2)");
                }
                Field last = fields.remove(fields.size() - 1);
                fields.add(new Field(last.start(), last.colon(), next, last.line()));
            } else {
                if (fields.size() == limits.maxFields()) {
                    throw new MalformedHeaderException("line " + line + " begins header field " + (fields.size() + 1)
                            + "; at most " + limits.maxFields() + " are allowed (" + HeaderLimits.MAX_FIELDS + ")");
                }
                fields.add(new Field(pos, colon(message, pos, end, line), next, line));
            }
            pos = next;
        }
        return new HeaderSection(message, List.copyOf(fields), message.length, false);
    }

    /** @return the offset of the colon of a line that starts a field */
    private static int colon(byte[] message, int start, int end, int line) throws MalformedHeaderException {
        int colon = indexOf(message, (byte) ':', start, end);
        boolean valid = colon > start;
        for (int i = start; valid && i < colon; i++) {
            valid = message[i] >= 33 && message[i] <= 126;
        }
        if (!valid) {
            throw new MalformedHeaderException("line " + line + " is neither a header field (name: value, RFC 5322"
                    + " 2.2) nor the continuation of one; the header section ends at the first empty line");
        }
        return colon;
    }

    /** @return the fields in their order */
    public List<Field> fields() {
        return fields;
    }

    /**
     * @return the offset of the body: after the empty line that ends the header section, or the message's length
     *         when it has none
     */
    public int bodyStart() {
        return bodyStart;
    }

    /** @return whether an empty line ended the section (else the message is all header, without a body) */
    public boolean ended() {
        return ended;
    }

    /**
     * @param field one of {@link #fields()}
     * @return its name as written
     */
    public String name(Field field) {
        return new String(message, field.start(), field.colon() - field.start(), StandardCharsets.US_ASCII);
    }

    /**
     * @param field one of {@link #fields()}
     * @return whether its octets are all ASCII (else it holds UTF-8, RFC 6532, or is not text)
     */
    public boolean isAscii(Field field) {
        for (int i = field.start(); i < field.end(); i++) {
            if (message[i] < 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * @param field one of {@link #fields()}
     * @return the text after its colon, folded lines joined by their line ends, decoded as UTF-8
     * @throws MalformedHeaderException when its octets are not UTF-8 (RFC 6532 §3.2 allows only UTF-8)
     */
    public String rawValue(Field field) throws MalformedHeaderException {
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(message, field.colon() + 1, field.end() - field.colon() - 1)).toString();
        } catch (CharacterCodingException e) {
            throw new MalformedHeaderException("line " + field.line() + " holds octets that are not UTF-8; a header"
                    + " field may hold only ASCII or UTF-8 (RFC 6532 3.2)");
        }
    }

    /**
     * Writes a field as the queue stores and sends it: its octets as they came, each line ended by CRLF (a line
     * that came with LF alone gets its CR).
     *
     * @param field one of {@link #fields()}
     * @param out   where
     */
    public void writeField(Field field, ByteArrayOutputStream out) {
        int from = field.start();
        for (int i = field.start(); i < field.end(); i++) {
            if (message[i] == LF && (i == field.start() || message[i - 1] != CR)) {
                out.write(message, from, i - from);
                out.write(CR);
                from = i;
            }
        }
        out.write(message, from, field.end() - from);
        if (field.end() == message.length && (field.end() == field.start() || message[field.end() - 1] != LF)) {
            out.write(CR);
            out.write(LF); // the message's last line had no line end
        }
    }

    private static int indexOf(byte[] source, byte b, int from, int to) {
        for (int i = from; i < to; i++) {
            if (source[i] == b) {
                return i;
            }
        }
        return -1;
    }
}
