package dev.mailqueue.queue.control;

import java.util.regex.Pattern;

/**
 * The text of an SMTP reply without what an event already carries beside it. The log keeps a reply as the server
 * sent it, {@code 250 2.0.0 OK} (RFC 5321 §4.2: {@code Reply-code [ SP textstring ] CRLF}, the enhanced status code at
 * the start of the text, RFC 2034 §4); an event carries the code and the enhanced status as fields of their own, so
 * its text is what follows them ({@code OK}), and a reader who puts the three side by side reads each once.
 */
final class ReplyText {

    /** A line break of a multiline reply (RFC 5321 §4.2.1), as servers and Angus Mail write it. */
    private static final Pattern LINES = Pattern.compile("\r?\n");

    private ReplyText() {
    }

    /**
     * @param code     the reply code the event carries, or null
     * @param enhanced the RFC 3463 enhanced status code the event carries, or null
     * @param text     the reply as stored (one line or several), or any other detail, or null
     * @return the text with each line's leading {@code code} (followed by a space, a hyphen or nothing) and then
     *         {@code enhanced} taken off, lines joined by {@code \n}; the text unchanged when its first line does
     *         not start with {@code code} (a reason the queue wrote, a report's text), or when nothing would remain
     */
    static String of(Integer code, String enhanced, String text) {
        if (code == null || text == null || !text.startsWith(String.valueOf(code))) {
            return text;
        }
        String prefix = String.valueOf(code);
        StringBuilder result = new StringBuilder(text.length());
        for (String line : LINES.split(text, -1)) {
            String rest = line;
            if (rest.startsWith(prefix) && (rest.length() == 3 || rest.charAt(3) == ' ' || rest.charAt(3) == '-')) {
                rest = rest.substring(Math.min(4, rest.length()));
                if (enhanced != null && (rest.equals(enhanced) || rest.startsWith(enhanced + " "))) {
                    rest = rest.substring(enhanced.length());
                }
                rest = rest.strip();
            }
            if (!result.isEmpty()) {
                result.append('\n');
            }
            result.append(rest);
        }
        return result.toString().isBlank() ? text : result.toString();
    }
}
