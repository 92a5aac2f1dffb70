package dev.mailqueue.address.control;

import jakarta.mail.internet.AddressException;
import jakarta.mail.internet.InternetAddress;

import java.nio.charset.StandardCharsets;

/**
 * Reads one mailbox as a caller writes it: a bare address ({@code jane@example.com}) or an RFC 5322 §3.4
 * {@code name-addr} ({@code "Doe, Jane" <jane@example.com>}, {@code José <josé@bücher.example>}, a name
 * RFC 2047-encoded or not). Parsing is Jakarta Mail's strict {@link InternetAddress}; on top of it the
 * queue refuses, with a reason each:
 * <ul>
 *   <li>CR, LF and every other control character, in the text and in the decoded name;</li>
 *   <li>comments ({@code (...)} outside a quoted string, RFC 5322 §3.2.2): Jakarta Mail would take
 *       {@code jane@example.com (Jane)} as a name, a reading that clients do not share; a name belongs in
 *       quotes before the address;</li>
 *   <li>group syntax ({@code Team: a@example.com, b@example.com;}, RFC 5322 §3.4): each address is given on
 *       its own, so that each has its own status;</li>
 *   <li>a quoted local part ({@code "a b"@example.com}): legal but rarely deliverable;</li>
 *   <li>a name longer than 200 characters;</li>
 *   <li>a Unicode domain that is not a valid IDNA domain ({@link DomainNames}); an ASCII domain label longer
 *       than 63 octets (RFC 1035 §2.3.4);</li>
 *   <li>RFC 5321 limits, counted in octets of the form that goes on the wire (UTF-8 local part, A-label
 *       domain): local part at most 64 (§4.5.3.1.1), domain at most 255 (§4.5.3.1.2), the address at most
 *       254 (§4.5.3.1.3, the 256 of a path less its angle brackets).</li>
 * </ul>
 * A non-ASCII local part is accepted (RFC 6531/6532); whether it can be sent depends on the server.
 */
public final class MailboxParser {

    /** Longest name, in characters (as {@code fromName}). */
    public static final int NAME_CHARS = 200;

    /** Longest text considered at all, in characters: a name, its quotes and escapes, and an address. */
    static final int TEXT_CHARS = 2 * NAME_CHARS + 300;

    static final int LABEL_OCTETS = 63;
    static final int LOCAL_PART_OCTETS = 64;
    static final int DOMAIN_OCTETS = 255;
    static final int ADDRESS_OCTETS = 254;

    private MailboxParser() {
    }

    /**
     * @param text a mailbox, not null
     * @return the mailbox
     * @throws InvalidAddressException when the text breaks a rule of this class; the message says which
     */
    public static Mailbox parse(String text) throws InvalidAddressException {
        if (text.isBlank()) {
            throw new InvalidAddressException("must not be blank");
        }
        if (text.length() > TEXT_CHARS) {
            throw new InvalidAddressException("is longer than " + TEXT_CHARS + " characters");
        }
        checkControls(text, "");
        checkNoComment(text);
        InternetAddress parsed;
        try {
            parsed = new InternetAddress(text, true);
            parsed.validate();
        } catch (AddressException e) {
            throw new InvalidAddressException("is not a valid e-mail address: " + e.getMessage());
        }
        if (parsed.isGroup()) {
            throw new InvalidAddressException("must be one address, not a group (RFC 5322 3.4 group syntax is not"
                    + " accepted: give each address on its own)");
        }
        String address = parsed.getAddress();
        if (address.startsWith("\"")) {
            throw new InvalidAddressException("must not use a quoted local part");
        }
        int at = address.lastIndexOf('@');
        if (at <= 0 || at == address.length() - 1) {
            throw new InvalidAddressException("must have a local part and a domain");
        }
        String name = name(parsed.getPersonal());
        String local = address.substring(0, at);
        String given = address.substring(at + 1);
        String domain;
        String unicodeDomain;
        try {
            if (DomainNames.isAscii(given)) {
                checkLabels(given);
                domain = given;
                unicodeDomain = given.startsWith("[") ? given : DomainNames.toUnicode(given);
            } else {
                domain = DomainNames.toAscii(given);
                unicodeDomain = DomainNames.toUnicode(domain);
            }
        } catch (IllegalArgumentException e) {
            throw new InvalidAddressException("has a domain that is not a valid internationalized domain name"
                    + " (IDNA, UTS #46: " + e.getMessage() + ")");
        }
        Mailbox mailbox = new Mailbox(name, local, domain, unicodeDomain);
        checkOctets(mailbox);
        return mailbox;
    }

    /**
     * @param text a mailbox that {@link #parse} accepted before (e.g. stored)
     * @return the mailbox
     * @throws IllegalArgumentException when it is not valid after all
     */
    public static Mailbox parseValid(String text) {
        try {
            return parse(text);
        } catch (InvalidAddressException e) {
            throw new IllegalArgumentException("not a valid mailbox: " + e.getMessage(), e);
        }
    }

    private static String name(String personal) throws InvalidAddressException {
        if (personal == null || personal.isBlank()) {
            return null;
        }
        checkControls(personal, "a name that ");
        if (personal.length() > NAME_CHARS) {
            throw new InvalidAddressException("has a name longer than " + NAME_CHARS + " characters");
        }
        return personal;
    }

    private static void checkControls(String text, String what) throws InvalidAddressException {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\r' || c == '\n') {
                throw new InvalidAddressException(what.isEmpty() ? "must not contain a line break"
                        : "has " + what + "contains a line break");
            }
            if (c < 0x20 || c >= 0x7f && c <= 0x9f) {
                throw new InvalidAddressException(what.isEmpty() ? "must not contain control characters"
                        : "has " + what + "contains control characters");
            }
        }
    }

    /** Refuses a parenthesis outside a quoted string: an RFC 5322 comment. */
    private static void checkNoComment(String text) throws InvalidAddressException {
        boolean quoted = false;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (quoted && c == '\\') {
                i++;
            } else if (c == '"') {
                quoted = !quoted;
            } else if (!quoted && (c == '(' || c == ')')) {
                throw new InvalidAddressException("must not contain a comment in parentheses (RFC 5322 3.2.2);"
                        + " put a name in quotes before the address: \"Pat (Sales)\" <pat@example.com>");
            }
        }
    }

    /** An ASCII domain's labels (UTS #46 checks those of a Unicode domain). */
    private static void checkLabels(String domain) throws InvalidAddressException {
        if (domain.startsWith("[")) {
            return;
        }
        for (String label : domain.split("\\.")) {
            if (label.length() > LABEL_OCTETS) {
                throw new InvalidAddressException("has a domain label longer than 63 octets (RFC 1035 2.3.4)");
            }
        }
    }

    private static void checkOctets(Mailbox mailbox) throws InvalidAddressException {
        if (octets(mailbox.address()) > ADDRESS_OCTETS) {
            throw new InvalidAddressException("is longer than 254 octets (RFC 5321 4.5.3.1.3; counted in UTF-8,"
                    + " with the domain as A-labels)");
        }
        if (octets(mailbox.localPart()) > LOCAL_PART_OCTETS) {
            throw new InvalidAddressException("has a local part longer than 64 octets (RFC 5321 4.5.3.1.1;"
                    + " counted in UTF-8)");
        }
        if (octets(mailbox.domain()) > DOMAIN_OCTETS) {
            throw new InvalidAddressException("has a domain longer than 255 octets (RFC 5321 4.5.3.1.2;"
                    + " counted as A-labels)");
        }
    }

    private static int octets(String s) {
        return s.getBytes(StandardCharsets.UTF_8).length;
    }
}
