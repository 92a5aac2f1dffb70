package dev.mailqueue.http.control;

import java.nio.charset.StandardCharsets;

/**
 * The header fields of a file download: {@code Content-Disposition: attachment} with the file name in
 * RFC 8187 encoding (UTF-8, percent-encoded; RFC 6266 §4.3 {@code filename*}), so that any name, also one
 * with quotes, semicolons or non-ASCII letters, arrives whole and cannot add parameters or header fields;
 * and the stored content type, if it is a well-formed media type (else {@code application/octet-stream}).
 */
public final class Downloads {

    /** What a download of an unusable stored type is sent as. */
    public static final String OCTET_STREAM = "application/octet-stream";

    /** RFC 8187 §3.2.1 attr-char besides letters and digits: sent as they are, everything else percent-encoded. */
    private static final String ATTR_CHAR_SYMBOLS = "!#$&+-.^_`|~";

    private Downloads() {
    }

    /**
     * @param filename the file's name
     * @return {@code attachment; filename*=UTF-8''<the name's UTF-8 octets, percent-encoded>}
     */
    public static String contentDisposition(String filename) {
        StringBuilder value = new StringBuilder("attachment; filename*=UTF-8''");
        for (byte b : filename.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            if (c < 0x80 && (Character.isLetterOrDigit(c) || ATTR_CHAR_SYMBOLS.indexOf(c) >= 0)) {
                value.append((char) c);
            } else {
                value.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
            }
        }
        return value.toString();
    }

    /**
     * @param stored a content type as stored with the file
     * @return it, when it is a media type (RFC 9110 §8.3.1) of printable ASCII; else {@value #OCTET_STREAM}
     */
    public static String contentType(String stored) {
        if (stored == null || stored.chars().anyMatch(c -> c < 0x20 || c >= 0x7f)
                || MediaTypeHeader.parse(stored).isEmpty()) {
            return OCTET_STREAM;
        }
        return stored.strip();
    }
}
