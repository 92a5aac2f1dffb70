package dev.mailqueue.address.control;

import java.util.Locale;

/**
 * Addresses at the reserved domain {@value #DOMAIN} (RFC 2606 reserves {@code .test}, so no real mailbox
 * has one): never sent to, in any delivery mode, each one's local part names the outcome it simulates,
 * so that the tests of a calling application can provoke bounces and complaints without an MTA. A
 * {@code +label} after the name is ignored ({@code bounce+invoice-17@...} is a bounce), so that many
 * mails can use one outcome and still be told apart.
 * <ul>
 *   <li>{@code success@}: accepted ({@code 250 2.0.0});</li>
 *   <li>{@code bounce@}: refused for good ({@code 550 5.1.1}, no such mailbox), as a real server's
 *       refusal is: recipient REFUSED, a {@code refused} event;</li>
 *   <li>{@code defer@}: refused for now ({@code 450 4.2.1}) on the mail's first attempt, accepted on the
 *       next one (with {@code mailqueue.delivery.max-attempts=1} it fails);</li>
 *   <li>{@code complaint@}: accepted, then reported as spam by its reader: a complaint is recorded as the
 *       bounce intake records a feedback report (recipient COMPLAINED, the address suppressed, a
 *       {@code complained} event);</li>
 *   <li>{@code suppressed@}: on the suppression list for all mail, always: suppressed at enqueue (or at
 *       claim) like a listed address, with a {@code suppressed} event;</li>
 *   <li>any other name: refused for good ({@code 550 5.1.1}), naming the names above.</li>
 * </ul>
 */
public final class SimulatorAddress {

    /** The simulator's domain: a subdomain of RFC 2606's reserved {@code .test} top-level domain. */
    public static final String DOMAIN = "simulator.mailqueue.test";

    private static final String SUFFIX = "@" + DOMAIN;

    /** The outcome an address simulates. */
    public enum Kind {
        SUCCESS, BOUNCE, DEFER, COMPLAINT, SUPPRESSED, UNKNOWN
    }

    private SimulatorAddress() {
    }

    /**
     * @param address a bare address as written (any letter case), or null
     * @return the outcome it simulates, or null when it is not at {@value #DOMAIN}
     */
    public static Kind of(String address) {
        if (address == null) {
            return null;
        }
        String lower = address.strip().toLowerCase(Locale.ROOT);
        if (!lower.endsWith(SUFFIX)) {
            return null;
        }
        String local = lower.substring(0, lower.length() - SUFFIX.length());
        int plus = local.indexOf('+');
        String name = plus < 0 ? local : local.substring(0, plus);
        return switch (name) {
            case "success" -> Kind.SUCCESS;
            case "bounce" -> Kind.BOUNCE;
            case "defer" -> Kind.DEFER;
            case "complaint" -> Kind.COMPLAINT;
            case "suppressed" -> Kind.SUPPRESSED;
            default -> Kind.UNKNOWN;
        };
    }

    /** @return true when the address is at {@value #DOMAIN} */
    public static boolean isSimulated(String address) {
        return of(address) != null;
    }
}
