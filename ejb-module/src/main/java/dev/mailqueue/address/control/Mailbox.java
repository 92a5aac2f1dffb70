package dev.mailqueue.address.control;

import jakarta.mail.internet.InternetAddress;

import java.io.UnsupportedEncodingException;
import java.nio.charset.StandardCharsets;

/**
 * One mailbox (RFC 5322 §3.4) as the queue keeps it after {@link MailboxParser}: an optional display name
 * and an address whose domain is held in both IDNA forms. The local part is kept as given; when it is not
 * ASCII the mailbox can only be sent over SMTPUTF8 (RFC 6531).
 *
 * @param name          the display name, Unicode, without control characters, at most 200 characters; null for none
 * @param localPart     the local part as given, 1 to 64 octets in UTF-8
 * @param domain        the domain in ASCII: its A-label form (RFC 5890) when it was given in Unicode, else as given
 * @param unicodeDomain the domain with its A-labels shown as U-labels; equals {@code domain} when it has none
 */
public record Mailbox(String name, String localPart, String domain, String unicodeDomain) {

    /** @return {@code local@domain} with the domain in ASCII: the form for SMTP, headers and storage */
    public String address() {
        return localPart + "@" + domain;
    }

    /** @return {@code local@domain} with the domain in Unicode, for people to read */
    public String unicodeAddress() {
        return localPart + "@" + unicodeDomain;
    }

    /** @return true when the local part is not ASCII: the mailbox needs an SMTPUTF8 server (RFC 6531 §3.2) */
    public boolean needsSmtpUtf8() {
        return !StandardCharsets.US_ASCII.newEncoder().canEncode(localPart);
    }

    /**
     * @return the mailbox for a header field: the name is RFC 2047-encoded in UTF-8 when it is not ASCII
     *         and quoted when it has specials (Jakarta Mail's {@link InternetAddress#toString()})
     * @throws IllegalStateException never in practice: UTF-8 is always supported
     */
    public InternetAddress toInternetAddress() {
        try {
            return new InternetAddress(address(), name, "UTF-8");
        } catch (UnsupportedEncodingException e) {
            throw new IllegalStateException("UTF-8 is not supported", e);
        }
    }
}
