package dev.mailqueue.api.validation;

import dev.mailqueue.address.control.InvalidAddressException;
import dev.mailqueue.address.control.MailboxParser;
import dev.mailqueue.api.MailLimits;
import jakarta.mail.internet.AddressException;
import jakarta.mail.internet.InternetAddress;
import jakarta.validation.ConstraintValidator;
import jakarta.validation.ConstraintValidatorContext;

import java.nio.charset.StandardCharsets;

/**
 * Checks {@link MailAddress} with {@link MailboxParser}. {@link #problemWith} keeps the older, stricter
 * rule of a bare ASCII address for the operator's suppression-list entries: ASCII only, no quoted local
 * part or comma, strict RFC 822 parsing by {@link InternetAddress}, the RFC 5321 octet limits, and the
 * text being the bare address and nothing more (no display name, no group, no second address, no line
 * break).
 */
public class MailAddressValidator implements ConstraintValidator<MailAddress, String> {

    @Override
    public boolean isValid(String value, ConstraintValidatorContext context) {
        if (value == null) {
            return true;
        }
        String problem;
        try {
            MailboxParser.parse(value);
            return true;
        } catch (InvalidAddressException e) {
            problem = e.getMessage();
        }
        context.disableDefaultConstraintViolation();
        // The text may echo the caller's input; keep message-template syntax out of it.
        String literal = problem.replaceAll("[{}$\\\\]", "");
        context.buildConstraintViolationWithTemplate(literal).addConstraintViolation();
        return false;
    }

    /**
     * The rule of a bare ASCII address, for code that checks an address outside Bean Validation (an
     * operator's suppression-list entry). Stricter than {@link MailAddress}: no name, no IDN, no SMTPUTF8.
     *
     * @param value the candidate address, not null
     * @return null when the address is acceptable, otherwise a sentence that says what is wrong
     */
    public static String problemWith(String value) {
        if (value.isBlank()) {
            return "must not be blank";
        }
        if (value.indexOf('\r') >= 0 || value.indexOf('\n') >= 0) {
            return "must not contain a line break";
        }
        if (!StandardCharsets.US_ASCII.newEncoder().canEncode(value)) {
            return "must be ASCII: internationalized addresses (RFC 6531 SMTPUTF8) are not supported";
        }
        if (value.indexOf('"') >= 0 || value.indexOf(',') >= 0) {
            return "must not use a quoted local part or a comma";
        }
        InternetAddress parsed;
        try {
            parsed = new InternetAddress(value, true);
            parsed.validate();
        } catch (AddressException e) {
            return "is not a valid e-mail address: " + e.getMessage();
        }
        if (parsed.isGroup() || parsed.getPersonal() != null || !value.equals(parsed.getAddress())) {
            return "must be a bare address such as user@example.com, without a display name";
        }
        String address = parsed.getAddress();
        int at = address.lastIndexOf('@');
        if (at <= 0) {
            return "must have a local part and a domain";
        }
        if (octets(address) > MailLimits.ADDRESS_OCTETS) {
            return "is longer than 254 octets (RFC 5321 4.5.3.1.3)";
        }
        if (octets(address.substring(0, at)) > MailLimits.LOCAL_PART_OCTETS) {
            return "has a local part longer than 64 octets (RFC 5321 4.5.3.1.1)";
        }
        if (octets(address.substring(at + 1)) > MailLimits.DOMAIN_OCTETS) {
            return "has a domain longer than 255 octets (RFC 5321 4.5.3.1.2)";
        }
        return null;
    }

    private static int octets(String s) {
        return s.getBytes(StandardCharsets.UTF_8).length;
    }
}
