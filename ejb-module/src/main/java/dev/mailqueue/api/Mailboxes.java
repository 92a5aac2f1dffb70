package dev.mailqueue.api;

/**
 * Writes a name and an address as one RFC 5322 §3.4 {@code name-addr}, the form {@link MailRequest} takes
 * in {@code from}, {@code replyTo}, {@code to}, {@code cc} and {@code bcc}: {@code "Doe, Jane" <jane@example.com>}.
 * The name is always a quoted string (RFC 5322 §3.2.4), with {@code "} and {@code \} escaped, so commas,
 * dots and parentheses in it stay part of the name. Nothing is checked here: the queue checks the result
 * when the mail is enqueued (a name with a line break or control character is refused there).
 */
public final class Mailboxes {

    private Mailboxes() {
    }

    /**
     * @param name    the display name, any Unicode text; null or blank for none
     * @param address the address, e.g. {@code jane@example.com} or {@code josé@bücher.example}; not null
     * @return {@code "name" <address>}, or the address alone when there is no name
     */
    public static String named(String name, String address) {
        if (name == null || name.isBlank()) {
            return address;
        }
        return "\"" + name.replace("\\", "\\\\").replace("\"", "\\\"") + "\" <" + address + ">";
    }
}
