package dev.mailqueue.webhook.control;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;

/**
 * Keeps webhook requests from reaching the server's own network (server-side request forgery): an
 * address is acceptable only when it is globally reachable. The rules are IANA's registries:
 * <ul>
 *   <li>the IPv4 and IPv6 Special-Purpose Address Registries (RFC 6890 and the RFCs that add to them):
 *       every block whose "Globally Reachable" column is False is refused, e.g. 0/8, 10/8, 100.64/10,
 *       127/8, 169.254/16 (cloud metadata), 172.16/12, 192.0.0/24, the TEST-NETs 192.0.2/24,
 *       198.51.100/24 and 203.0.113/24, 192.168/16, 198.18/15, 240/4, 255.255.255.255, and ::1, ::,
 *       ::ffff:0:0/96, 64:ff9b:1::/48 (RFC 8215), 100::/64, 2001::/23 (with Teredo 2001::/32 and
 *       benchmarking 2001:2::/48), 2001:db8::/32, 3fff::/20, 5f00::/16, fc00::/7, fe80::/10; the
 *       blocks inside those that the registry marks globally reachable (anycast services such as
 *       192.0.0.9, 2001:1::1, AMT 2001:3::/32) are allowed; the deprecated 6to4 relay anycast block
 *       192.88.99.0/24 (RFC 7526) is refused;</li>
 *   <li>the IPv4 Multicast Address Space (224/4, RFC 5771) and, for IPv6, every address outside the
 *       global unicast space 2000::/3 (IANA IPv6 Address Space registry, RFC 4291 §2.4): multicast
 *       ff00::/8, the deprecated IPv4-compatible ::/96 (RFC 4291 §2.5.5.1, {@code ::127.0.0.1}) and
 *       site-local fec0::/10 (RFC 3879), and the rest of the reserved space;</li>
 *   <li>addresses that carry an IPv4 address inside: NAT64's well-known prefix 64:ff9b::/96 (RFC 6052 §2.1,
 *       the IPv4 address in the last 32 bits) and 6to4 2002::/16 (RFC 3056 §2, the IPv4 address in bits
 *       16 to 47) are acceptable only when the IPv4 address inside is.</li>
 * </ul>
 * Network-specific NAT64 prefixes (RFC 6052 §2.2) look like ordinary global addresses and cannot be told
 * apart here. The check runs on the addresses a connection is then made to ({@link PinnedResolver}), so a
 * name that changes between the check and the connection (DNS rebinding) gains nothing.
 */
public final class PublicAddresses {

    /** Where an IPv4 address sits inside an IPv6 address of a block, or none. */
    private static final int NO_IPV4 = -1;

    /**
     * One registry entry.
     *
     * @param prefix    the block's first address, 4 or 16 bytes
     * @param bits      its prefix length
     * @param name      the registry's name for it
     * @param source    the registry and RFC that define it
     * @param reachable true when the registry marks it globally reachable
     * @param ipv4At    the offset of an IPv4 address inside, in bytes, or {@link #NO_IPV4}
     */
    private record Block(byte[] prefix, int bits, String name, String source, boolean reachable, int ipv4At) {

        boolean contains(byte[] address) {
            if (address.length != prefix.length) {
                return false;
            }
            int whole = bits / 8;
            for (int i = 0; i < whole; i++) {
                if (address[i] != prefix[i]) {
                    return false;
                }
            }
            int rest = bits % 8;
            if (rest == 0) {
                return true;
            }
            int mask = (0xff << (8 - rest)) & 0xff;
            return (address[whole] & mask) == (prefix[whole] & mask);
        }

        @Override
        public String toString() {
            return name + " (" + source + ")";
        }
    }

    private static final String V4 = "IANA IPv4 Special-Purpose Address Registry, ";
    private static final String V6 = "IANA IPv6 Special-Purpose Address Registry, ";

    private static final List<Block> BLOCKS = List.of(
            v4("0.0.0.0", 8, "\"this network\"", V4 + "RFC 791 §3.2", false),
            v4("10.0.0.0", 8, "private use", V4 + "RFC 1918", false),
            v4("100.64.0.0", 10, "shared address space", V4 + "RFC 6598", false),
            v4("127.0.0.0", 8, "loopback", V4 + "RFC 1122 §3.2.1.3", false),
            v4("169.254.0.0", 16, "link local (cloud metadata services)", V4 + "RFC 3927", false),
            v4("172.16.0.0", 12, "private use", V4 + "RFC 1918", false),
            v4("192.0.0.0", 24, "IETF protocol assignments", V4 + "RFC 6890 §2.1", false),
            v4("192.0.0.9", 32, "port control protocol anycast", V4 + "RFC 7723", true),
            v4("192.0.0.10", 32, "traversal using relays around NAT anycast", V4 + "RFC 8155", true),
            v4("192.0.2.0", 24, "documentation (TEST-NET-1)", V4 + "RFC 5737", false),
            v4("192.88.99.0", 24, "deprecated 6to4 relay anycast", V4 + "RFC 7526", false),
            v4("192.168.0.0", 16, "private use", V4 + "RFC 1918", false),
            v4("198.18.0.0", 15, "benchmarking", V4 + "RFC 2544", false),
            v4("198.51.100.0", 24, "documentation (TEST-NET-2)", V4 + "RFC 5737", false),
            v4("203.0.113.0", 24, "documentation (TEST-NET-3)", V4 + "RFC 5737", false),
            v4("224.0.0.0", 4, "multicast", "IANA IPv4 Multicast Address Space Registry, RFC 5771", false),
            v4("240.0.0.0", 4, "reserved", V4 + "RFC 1112 §4", false),
            v4("255.255.255.255", 32, "limited broadcast", V4 + "RFC 8190, RFC 919 §7", false),

            v6("::", 128, "unspecified address", V6 + "RFC 4291", false, NO_IPV4),
            v6("::1", 128, "loopback", V6 + "RFC 4291", false, NO_IPV4),
            v6("::", 96, "deprecated IPv4-compatible address", "IANA IPv6 Address Space registry, RFC 4291 §2.5.5.1",
                    false, NO_IPV4),
            v6("::ffff:0:0", 96, "IPv4-mapped address", V6 + "RFC 4291", false, NO_IPV4),
            v6("64:ff9b::", 96, "IPv4-IPv6 translation", V6 + "RFC 6052", true, 12),
            v6("64:ff9b:1::", 48, "local-use IPv4/IPv6 translation", V6 + "RFC 8215", false, NO_IPV4),
            v6("100::", 64, "discard-only", V6 + "RFC 6666", false, NO_IPV4),
            v6("100:0:0:1::", 64, "dummy IPv6 prefix", V6 + "RFC 9780", false, NO_IPV4),
            v6("2001::", 23, "IETF protocol assignments", V6 + "RFC 2928", false, NO_IPV4),
            v6("2001::", 32, "Teredo", V6 + "RFC 4380, RFC 8190", false, NO_IPV4),
            v6("2001:1::1", 128, "port control protocol anycast", V6 + "RFC 7723", true, NO_IPV4),
            v6("2001:1::2", 128, "traversal using relays around NAT anycast", V6 + "RFC 8155", true, NO_IPV4),
            v6("2001:1::3", 128, "DNS-SD service registration protocol anycast", V6 + "RFC 9665", true, NO_IPV4),
            v6("2001:2::", 48, "benchmarking", V6 + "RFC 5180", false, NO_IPV4),
            v6("2001:3::", 32, "automatic multicast tunneling", V6 + "RFC 7450", true, NO_IPV4),
            v6("2001:4:112::", 48, "AS112-v6", V6 + "RFC 7535", true, NO_IPV4),
            v6("2001:20::", 28, "ORCHIDv2", V6 + "RFC 7343", true, NO_IPV4),
            v6("2001:30::", 28, "drone remote ID entity tags", V6 + "RFC 9374", true, NO_IPV4),
            v6("2001:db8::", 32, "documentation", V6 + "RFC 3849", false, NO_IPV4),
            v6("2002::", 16, "6to4", V6 + "RFC 3056", true, 2),
            v6("3fff::", 20, "documentation", V6 + "RFC 9637", false, NO_IPV4),
            v6("5f00::", 16, "segment routing (SRv6) SIDs", V6 + "RFC 9602", false, NO_IPV4),
            v6("fc00::", 7, "unique local", V6 + "RFC 4193, RFC 8190", false, NO_IPV4),
            v6("fe80::", 10, "link-local unicast", V6 + "RFC 4291", false, NO_IPV4),
            v6("fec0::", 10, "deprecated site-local", "IANA IPv6 Address Space registry, RFC 3879", false, NO_IPV4),
            v6("ff00::", 8, "multicast", "IANA IPv6 Address Space registry, RFC 4291 §2.7", false, NO_IPV4));

    /** Global unicast (RFC 4291 §2.4): the only IPv6 space from which a public address can come. */
    private static final Block GLOBAL_UNICAST = v6("2000::", 3, "global unicast",
            "IANA IPv6 Address Space registry, RFC 4291 §2.4", true, NO_IPV4);

    private PublicAddresses() {
    }

    /**
     * @param host a URL's host, a name or an address literal
     * @return null when every address the host resolves to is globally reachable; otherwise why it is
     *         refused (the address and the registry entry), or that it does not resolve
     */
    public static String problemWith(String host) {
        InetAddress[] addresses;
        try {
            addresses = InetAddress.getAllByName(host);
        } catch (UnknownHostException e) {
            return "host " + host + " does not resolve";
        }
        return problemWith(host, addresses);
    }

    /**
     * @param host      the name the addresses are of, for the message
     * @param addresses its addresses
     * @return null when all of them are globally reachable; otherwise why the first that is not is refused
     */
    static String problemWith(String host, InetAddress[] addresses) {
        for (InetAddress a : addresses) {
            String why = refusal(a);
            if (why != null) {
                return "host " + host + " resolves to " + a.getHostAddress() + ", which is not a public address: " + why
                        + " (set mailqueue.webhook.allow-private-addresses=true to allow it)";
            }
        }
        return null;
    }

    /** @return true when {@code a} is globally reachable by the rules above */
    static boolean isPublic(InetAddress a) {
        return refusal(a) == null;
    }

    /** @return null when {@code a} is globally reachable; otherwise the registry entry that says it is not */
    static String refusal(InetAddress a) {
        return refusal(a.getAddress());
    }

    private static String refusal(byte[] address) {
        Block block = null;
        for (Block b : BLOCKS) {
            if (b.contains(address) && (block == null || b.bits() > block.bits())) {
                block = b;
            }
        }
        if (block == null) {
            return address.length == 4 || GLOBAL_UNICAST.contains(address) ? null
                    : "outside IPv6 " + GLOBAL_UNICAST;
        }
        if (!block.reachable()) {
            return block.toString();
        }
        if (block.ipv4At() != NO_IPV4) {
            byte[] inside = new byte[4];
            System.arraycopy(address, block.ipv4At(), inside, 0, 4);
            String why = refusal(inside);
            if (why != null) {
                return block + " of " + (inside[0] & 0xff) + "." + (inside[1] & 0xff) + "." + (inside[2] & 0xff) + "."
                        + (inside[3] & 0xff) + ", " + why;
            }
        }
        return null;
    }

    private static Block v4(String prefix, int bits, String name, String source, boolean reachable) {
        return new Block(literal(prefix, 4), bits, prefix + "/" + bits + " " + name, source, reachable, NO_IPV4);
    }

    private static Block v6(String prefix, int bits, String name, String source, boolean reachable, int ipv4At) {
        return new Block(literal(prefix, 16), bits, prefix + "/" + bits + " " + name, source, reachable, ipv4At);
    }

    /** @return the bytes of an address literal, 16 for IPv6 (also for ::ffff:0:0, which Java turns into IPv4) */
    private static byte[] literal(String text, int length) {
        byte[] b;
        try {
            InetAddress a = InetAddress.getByName(text); // a literal: no lookup
            b = a.getAddress();
            if (length == 16 && a instanceof Inet4Address) {
                byte[] mapped = new byte[16];
                mapped[10] = (byte) 0xff;
                mapped[11] = (byte) 0xff;
                System.arraycopy(b, 0, mapped, 12, 4);
                b = mapped;
            }
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(text, e);
        }
        if (b.length != length) {
            throw new IllegalArgumentException(text + " is not an IPv" + (length == 4 ? 4 : 6) + " address");
        }
        return b;
    }
}
