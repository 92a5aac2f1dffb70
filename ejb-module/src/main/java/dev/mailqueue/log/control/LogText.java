package dev.mailqueue.log.control;

/**
 * Makes text from a request safe to put in a log line: a caller must not be able to forge lines
 * (CWE-117, OWASP "Log Injection") with CR or LF, write NUL or other control characters into the log,
 * or flood it. Every character below U+0020, U+007F to U+009F, the Unicode line and paragraph
 * separators (U+2028, U+2029) and unpaired surrogates are written as {@code \\uXXXX}, the backslash as
 * {@code \\\\}; the result is cut to {@value #MAX_CHARS} characters of input with a note of how much
 * was left out.
 */
public final class LogText {

    /** Most characters of one value that go into a log line. */
    public static final int MAX_CHARS = 200;

    private LogText() {
    }

    /**
     * @param text any text from outside, may be null
     * @return the text escaped and shortened, {@code null} for null; always a single line
     */
    public static String escape(Object text) {
        if (text == null) {
            return "null";
        }
        String s = text.toString();
        int end = Math.min(s.length(), MAX_CHARS);
        if (end < s.length() && Character.isHighSurrogate(s.charAt(end - 1))) {
            end--; // never cut a surrogate pair in two
        }
        StringBuilder out = new StringBuilder(end + 16);
        for (int i = 0; i < end; i++) {
            char c = s.charAt(i);
            boolean pairedSurrogate = Character.isHighSurrogate(c) && i + 1 < end
                    && Character.isLowSurrogate(s.charAt(i + 1))
                    || Character.isLowSurrogate(c) && i > 0 && Character.isHighSurrogate(s.charAt(i - 1));
            if (c == '\\') {
                out.append("\\\\");
            } else if (c < 0x20 || c >= 0x7f && c <= 0x9f || c == '\u2028' || c == '\u2029'
                    || Character.isSurrogate(c) && !pairedSurrogate) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        if (s.length() > end) {
            out.append("...(").append(s.length() - end).append(" more characters)");
        }
        return out.toString();
    }

    /**
     * A copy of an exception fit for the log: the same classes (by name), stack traces and causes (at most
     * {@value #MAX_CAUSES} deep), with every message {@link #escape escaped}. The messages of database,
     * mail and parsing exceptions can quote the request (a bound value, a header, an address), which the
     * log would otherwise print raw.
     *
     * @param failure an exception, not null
     * @return its loggable copy
     */
    public static Throwable safe(Throwable failure) {
        return copy(failure, 0);
    }

    /** Deepest cause chain copied by {@link #safe}. */
    static final int MAX_CAUSES = 10;

    private static Throwable copy(Throwable failure, int depth) {
        Throwable cause = failure.getCause() == null || depth >= MAX_CAUSES || failure.getCause() == failure
                ? null : copy(failure.getCause(), depth + 1);
        Loggable copy = new Loggable(failure.getClass().getName(), failure.getMessage() == null ? null
                : escape(failure.getMessage()), cause);
        copy.setStackTrace(failure.getStackTrace());
        return copy;
    }

    /** An exception as the log shows it: the original's class name and an escaped message. */
    private static final class Loggable extends Throwable {

        private static final long serialVersionUID = 1L;

        private final String className;

        Loggable(String className, String message, Throwable cause) {
            super(message, cause, false, true);
            this.className = className;
        }

        @Override
        public String toString() {
            return getMessage() == null ? className : className + ": " + getMessage();
        }
    }
}
