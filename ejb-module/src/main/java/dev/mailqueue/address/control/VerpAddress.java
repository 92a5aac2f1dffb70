package dev.mailqueue.address.control;

import java.util.Locale;
import java.util.Optional;

/**
 * VERP addresses: the bounce address of an account with a token put after a {@code +} in its local part,
 * {@code bounces@example.com} → {@code bounces+<token>@example.com}, the plus-address form that Postfix
 * ({@code recipient_delimiter = +}), Exim, Gmail and most mailbox providers deliver to the plain mailbox.
 * RFC 5321 §4.5.3.1.1 limits a local part to {@value #LOCAL_PART_OCTETS} octets, so a bounce address's own
 * local part may have at most {@value #MAX_BOUNCE_LOCAL_PART} ({@code 64 - 1 - }{@link VerpToken#MAX_CHARS}).
 * Stateless.
 */
public final class VerpAddress {

    /** Longest local part of an address: 64 octets (RFC 5321 §4.5.3.1.1). */
    public static final int LOCAL_PART_OCTETS = 64;
    /** Longest local part of a bounce address, so that the VERP address of the largest mail id still fits. */
    public static final int MAX_BOUNCE_LOCAL_PART = LOCAL_PART_OCTETS - 1 - VerpToken.MAX_CHARS;

    private VerpAddress() {
    }

    /**
     * @param bounceAddress a bounce address that {@link #problem} accepts, {@code local@domain}
     * @param token         a token ({@link VerpToken#of})
     * @return {@code local+token@domain}
     */
    public static String of(String bounceAddress, String token) {
        int at = bounceAddress.lastIndexOf('@');
        return bounceAddress.substring(0, at) + "+" + token + bounceAddress.substring(at);
    }

    /**
     * @param address an address as a report's header carries it, e.g. {@code <bounces+x-y@example.com>} or
     *                {@code bounces+x-y@example.com}; may be null
     * @return what follows the first {@code +} of its local part, when there is such a part; not verified
     */
    public static Optional<String> token(String address) {
        if (address == null) {
            return Optional.empty();
        }
        String bare = address.strip();
        int open = bare.lastIndexOf('<');
        if (open >= 0) {
            int close = bare.indexOf('>', open);
            bare = bare.substring(open + 1, close < 0 ? bare.length() : close).strip();
        }
        int at = bare.lastIndexOf('@');
        int plus = bare.indexOf('+');
        if (at < 0 || plus < 0 || plus > at) {
            return Optional.empty();
        }
        String token = bare.substring(plus + 1, at);
        return token.isEmpty() ? Optional.empty() : Optional.of(token);
    }

    /**
     * @param bounceAddress a candidate bounce address
     * @return why it cannot be a bounce address, or null when it can: a plain {@code local@domain} of ASCII
     *         letters, digits and {@code . _ -} in the local part (no {@code +}, which VERP adds), at most
     *         {@value #MAX_BOUNCE_LOCAL_PART} characters, and a domain name
     */
    public static String problem(String bounceAddress) {
        int at = bounceAddress.lastIndexOf('@');
        if (at < 1 || at == bounceAddress.length() - 1) {
            return "must be an address local@domain";
        }
        String local = bounceAddress.substring(0, at);
        String domain = bounceAddress.substring(at + 1).toLowerCase(Locale.ROOT);
        if (!local.matches("[A-Za-z0-9._-]+") || local.startsWith(".") || local.endsWith(".") || local.contains("..")) {
            return "its local part may hold only A-Z a-z 0-9 . _ - (no +: VERP adds the token after a +)";
        }
        if (local.length() > MAX_BOUNCE_LOCAL_PART) {
            return "its local part may have at most " + MAX_BOUNCE_LOCAL_PART + " characters, so that with a token"
                    + " it stays within the 64 octets of RFC 5321 §4.5.3.1.1";
        }
        if (!domain.matches("[a-z0-9]([a-z0-9-]*[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+")) {
            return "its domain must be a domain name such as example.com";
        }
        return null;
    }
}
