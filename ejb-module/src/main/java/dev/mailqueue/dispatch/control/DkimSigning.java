package dev.mailqueue.dispatch.control;

import dev.mailqueue.dkim.control.DkimKey;
import dev.mailqueue.dkim.control.DkimKeys;
import jakarta.mail.MessagingException;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;

import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Chooses the DKIM key a message is signed with as it is sent: the key of the domain of its From address (the
 * author's, so the signature aligns with From for DMARC, RFC 7489 §3.1.1), none when no key names that domain.
 * A message that already carries a {@code DKIM-Signature} of that domain (raw MIME the application signed itself)
 * is sent as it is: signing it again would add nothing a receiver trusts more, unless the key asks for it
 * ({@code mailqueue.dkim.<name>.sign-signed}).
 */
final class DkimSigning {

    /** Signs nothing: for a server without keys, and for tests. */
    static final DkimSigning NONE = new DkimSigning(null);

    /** The {@code d=} tag of a DKIM-Signature field (RFC 6376 §3.5). */
    private static final Pattern DOMAIN_TAG = Pattern.compile("(?:^|;)\\s*d\\s*=\\s*([^;\\s]+)");

    private final DkimKeys keys;

    /** @param keys the configured keys; null: none */
    DkimSigning(DkimKeys keys) {
        this.keys = keys;
    }

    /**
     * @param message a composed message
     * @return the key to sign it with, or null to send it unsigned
     * @throws MessagingException    when its From field cannot be read
     * @throws IllegalStateException when its domain has a key that could not be read: it is not sent unsigned
     */
    DkimKey keyFor(MimeMessage message) throws MessagingException {
        if (keys == null || keys.none()) {
            return null;
        }
        String from = message.getHeader("From", ",");
        if (from == null) {
            return null;
        }
        InternetAddress[] authors = InternetAddress.parseHeader(from, false);
        if (authors.length == 0 || authors[0].getAddress() == null || authors[0].getAddress().indexOf('@') < 0) {
            return null;
        }
        String address = authors[0].getAddress();
        String domain = address.substring(address.lastIndexOf('@') + 1).toLowerCase(Locale.ROOT);
        Optional<DkimKeys.Entry> entry = keys.forDomain(domain);
        if (entry.isEmpty() || !entry.get().signSigned() && signedAlready(message, domain)) {
            return null;
        }
        if (entry.get().key() == null) {
            throw new IllegalStateException("DKIM key " + entry.get().name() + " for " + domain
                    + " cannot be read, and the mail is not sent unsigned: " + entry.get().problem());
        }
        return entry.get().key();
    }

    private static boolean signedAlready(MimeMessage message, String domain) throws MessagingException {
        String[] signatures = message.getHeader(DkimKey.FIELD);
        if (signatures == null) {
            return false;
        }
        for (String signature : signatures) {
            Matcher tag = DOMAIN_TAG.matcher(signature.replaceAll("\\s+", " "));
            if (tag.find() && tag.group(1).equalsIgnoreCase(domain)) {
                return true;
            }
        }
        return false;
    }
}
