package dev.mailqueue.webhook.control;

import org.apache.hc.client5.http.DnsResolver;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

/**
 * The name lookup of {@link WebhookClient}'s connections: the host is resolved once per new connection,
 * every address is checked ({@link PublicAddresses}, unless private addresses are allowed), and Apache
 * HttpClient connects to exactly these addresses, trying them in order. No second lookup happens between
 * the check and the connection, so a name whose answer changes (DNS rebinding, or the JVM's cache running
 * out in between) cannot lead the request to an address that was not checked. TLS and {@code Host} still
 * use the URL's host name: HttpClient passes the name, not the address, to the TLS handshake (SNI and the
 * certificate check) and writes it into {@code Host}.
 */
final class PinnedResolver implements DnsResolver {

    /** Looks a host's addresses up; {@code InetAddress::getAllByName} outside tests. */
    @FunctionalInterface
    interface Lookup {

        /**
         * @param host a name or an address literal
         * @return its addresses, at least one
         * @throws UnknownHostException when it has none
         */
        InetAddress[] addresses(String host) throws UnknownHostException;
    }

    /** A host whose addresses are not all public: the request is not sent. */
    static final class RefusedAddressException extends UnknownHostException {

        private static final long serialVersionUID = 1L;

        RefusedAddressException(String message) {
            super(message);
        }
    }

    private final Lookup lookup;
    private final boolean allowPrivateAddresses;

    /**
     * @param lookup                the name lookup
     * @param allowPrivateAddresses true to connect to any address (the addresses are still pinned)
     */
    PinnedResolver(Lookup lookup, boolean allowPrivateAddresses) {
        this.lookup = lookup;
        this.allowPrivateAddresses = allowPrivateAddresses;
    }

    /**
     * @throws RefusedAddressException when private addresses are not allowed and one of the host's is not
     *                                 public (the message names it and its registry entry)
     * @throws UnknownHostException    when the host does not resolve
     */
    @Override
    public InetAddress[] resolve(String host) throws UnknownHostException {
        String name = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        InetAddress[] addresses = lookup.addresses(name);
        if (addresses == null || addresses.length == 0) {
            throw new UnknownHostException("host " + name + " does not resolve");
        }
        if (!allowPrivateAddresses) {
            String problem = PublicAddresses.problemWith(name, addresses);
            if (problem != null) {
                throw new RefusedAddressException(problem);
            }
        }
        return addresses.clone();
    }

    /** The lookup HttpClient's connection operator calls: {@link #resolve(String)}, with the port. */
    @Override
    public List<InetSocketAddress> resolve(String host, int port) throws UnknownHostException {
        List<InetSocketAddress> addresses = new ArrayList<>();
        for (InetAddress a : resolve(host)) {
            addresses.add(new InetSocketAddress(a, port));
        }
        return addresses;
    }

    /** @return the host itself: the canonical name is only used for Kerberos, which webhooks do not use */
    @Override
    public String resolveCanonicalHostname(String host) {
        return host;
    }
}
