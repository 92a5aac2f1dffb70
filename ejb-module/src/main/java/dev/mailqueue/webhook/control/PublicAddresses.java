package dev.mailqueue.webhook.control;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * Keeps webhook requests from reaching the server's own network (server-side request forgery): a host
 * is acceptable only when every address it resolves to is a public one. Refused: the unspecified address,
 * loopback (127/8, ::1), private ranges (RFC 1918: 10/8, 172.16/12, 192.168/16; RFC 4193 unique local
 * fc00::/7), link-local (169.254/16, fe80::/10, which holds cloud metadata services), shared address
 * space (RFC 6598: 100.64/10), 0/8, multicast, and IPv4 addresses mapped into IPv6. The check runs before
 * every request, so a name that starts resolving to a private address is refused from then on; a name
 * that changes between the check and the connection (DNS rebinding) is not caught.
 */
public final class PublicAddresses {

    private PublicAddresses() {
    }

    /**
     * @param host a URL's host
     * @return null when every address of the host is public; otherwise why it is refused
     */
    public static String problemWith(String host) {
        InetAddress[] addresses;
        try {
            addresses = InetAddress.getAllByName(host);
        } catch (UnknownHostException e) {
            return "host " + host + " does not resolve";
        }
        for (InetAddress a : addresses) {
            if (!isPublic(a)) {
                return "host " + host + " resolves to " + a.getHostAddress() + ", which is not a public address"
                        + " (set mailqueue.webhook.allow-private-addresses=true to allow it)";
            }
        }
        return null;
    }

    /** @return true when {@code a} is none of the refused kinds */
    static boolean isPublic(InetAddress a) {
        if (a.isAnyLocalAddress() || a.isLoopbackAddress() || a.isLinkLocalAddress() || a.isSiteLocalAddress()
                || a.isMulticastAddress()) {
            return false;
        }
        byte[] b = a.getAddress();
        if (a instanceof Inet4Address) {
            int first = b[0] & 0xff;
            int second = b[1] & 0xff;
            return first != 0 && !(first == 100 && second >= 64 && second <= 127);
        }
        if (a instanceof Inet6Address) {
            boolean uniqueLocal = (b[0] & 0xfe) == 0xfc;
            boolean mapped = isZero(b, 0, 10) && (b[10] & 0xff) == 0xff && (b[11] & 0xff) == 0xff;
            return !uniqueLocal && !mapped;
        }
        return false;
    }

    private static boolean isZero(byte[] b, int from, int to) {
        for (int i = from; i < to; i++) {
            if (b[i] != 0) {
                return false;
            }
        }
        return true;
    }
}
