package dev.mailqueue.queue.entity;

/** Fits free text (errors, SMTP replies) into its column. */
public final class Texts {

    private Texts() {
    }

    /**
     * @param text      any text, or null
     * @param maxLength the column's length in characters, at least 1
     * @return the text trimmed and cut to {@code maxLength} characters, or null
     */
    public static String clip(String text, int maxLength) {
        if (text == null) {
            return null;
        }
        String trimmed = text.strip();
        return trimmed.length() <= maxLength ? trimmed : trimmed.substring(0, maxLength);
    }
}
