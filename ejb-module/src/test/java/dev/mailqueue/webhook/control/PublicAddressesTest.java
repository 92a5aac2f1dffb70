package dev.mailqueue.webhook.control;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.InetAddress;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which addresses a webhook may be sent to without mailqueue.webhook.allow-private-addresses: the IANA
 * special-purpose registries' "not globally reachable" blocks, IPv6 outside global unicast, and IPv4
 * addresses carried inside IPv6 (NAT64, 6to4) are refused, each with the registry entry named.
 */
class PublicAddressesTest {

    @ParameterizedTest(name = "{0} refused: {1}")
    @CsvSource(delimiter = '|', textBlock = """
            0.0.0.0              | "this network"
            0.1.2.3              | "this network"
            10.1.2.3             | private use (IANA IPv4 Special-Purpose Address Registry, RFC 1918)
            100.64.0.1           | shared address space
            100.127.255.255      | shared address space
            127.0.0.1            | loopback
            127.8.9.10           | loopback
            169.254.169.254      | link local (cloud metadata services)
            172.16.0.1           | private use
            172.31.255.255       | private use
            192.0.0.1            | IETF protocol assignments
            192.0.0.8            | IETF protocol assignments
            192.0.0.170          | IETF protocol assignments
            192.0.2.10           | TEST-NET-1
            192.88.99.1          | deprecated 6to4 relay anycast
            192.168.1.1          | private use
            198.18.0.1           | benchmarking
            198.19.255.255       | benchmarking
            198.51.100.7         | TEST-NET-2
            203.0.113.9          | TEST-NET-3
            224.0.0.1            | multicast
            239.255.255.250      | multicast
            240.0.0.1            | 240.0.0.0/4 reserved
            254.1.2.3            | 240.0.0.0/4 reserved
            255.255.255.255      | limited broadcast
            ::                   | unspecified address
            ::1                  | ::1/128 loopback
            ::127.0.0.1          | deprecated IPv4-compatible address
            ::169.254.169.254    | deprecated IPv4-compatible address
            ::8.8.8.8            | deprecated IPv4-compatible address
            64:ff9b::10.0.0.1    | IPv4-IPv6 translation (IANA IPv6 Special-Purpose Address Registry, RFC 6052) of 10.0.0.1
            64:ff9b::127.0.0.1   | of 127.0.0.1, 127.0.0.0/8 loopback
            64:ff9b::a9fe:a9fe   | of 169.254.169.254
            64:ff9b:1::8.8.8.8   | local-use IPv4/IPv6 translation (IANA IPv6 Special-Purpose Address Registry, RFC 8215)
            100::1               | discard-only
            100:0:0:1::1         | dummy IPv6 prefix
            2001::1              | Teredo
            2001:0:4136:e378:8000:63bf:3fff:fdd2 | Teredo
            2001:2::1            | benchmarking
            2001:10::1           | IETF protocol assignments
            2001:db8::1          | 2001:db8::/32 documentation
            2002:a00:1::1        | 6to4 (IANA IPv6 Special-Purpose Address Registry, RFC 3056) of 10.0.0.1
            2002:7f00:1::1       | of 127.0.0.1
            2002:a9fe:a9fe::1    | of 169.254.169.254
            3fff::1              | 3fff::/20 documentation
            5f00::1              | segment routing
            fc00::1              | unique local
            fd12:3456::1         | unique local
            fe80::1              | link-local unicast
            fec0::1              | deprecated site-local
            ff02::1              | multicast
            ::2:1                | deprecated IPv4-compatible address
            400::1               | outside IPv6 2000::/3 global unicast
            """)
    void addressesThatAreNotGloballyReachableAreRefusedNamingTheirRegistryEntry(String address, String reason) throws Exception {
        InetAddress a = InetAddress.getByName(address);
        assertThat(PublicAddresses.isPublic(a)).isFalse();
        assertThat(PublicAddresses.refusal(a)).contains(reason);
        assertThat(PublicAddresses.problemWith(address)).contains("not a public address", reason, "allow-private-addresses");
    }

    @ParameterizedTest
    @ValueSource(strings = {"93.184.215.14", "8.8.8.8", "1.1.1.1", "172.32.0.1", "100.128.0.1", "192.0.1.1", "192.0.3.1",
            "198.20.0.1", "223.255.255.254",
            "192.0.0.9", "192.0.0.10", // anycast services the registry marks globally reachable
            "192.31.196.1", "192.175.48.1", // AS112
            "2606:4700::1111", "2a00:1450:4001::200e", "2620:4f:8000::1",
            "64:ff9b::8.8.8.8", "64:ff9b::5db8:d70e", // NAT64 of a public address
            "2002:808:808::1", // 6to4 of 8.8.8.8
            "2001:1::1", "2001:3::1", "2001:4:112::1", "2001:20::1"}) // globally reachable blocks inside 2001::/23
    void globallyReachableAddressesAreAllowed(String address) throws Exception {
        InetAddress a = InetAddress.getByName(address);
        assertThat(PublicAddresses.refusal(a)).isNull();
        assertThat(PublicAddresses.problemWith(address)).isNull();
    }

    @Test
    void anIpv4MappedAddressIsCheckedAsTheIpv4AddressItCarries() throws Exception {
        assertThat(PublicAddresses.isPublic(InetAddress.getByName("::ffff:127.0.0.1"))).isFalse();
        assertThat(PublicAddresses.isPublic(InetAddress.getByName("::ffff:10.1.1.1"))).isFalse();
        assertThat(PublicAddresses.isPublic(InetAddress.getByName("::ffff:8.8.8.8"))).isTrue();
    }

    @Test
    void oneRefusedAddressAmongPublicOnesRefusesTheHost() throws Exception {
        InetAddress[] addresses = {InetAddress.getByName("8.8.8.8"), InetAddress.getByName("fd00::1")};
        assertThat(PublicAddresses.problemWith("hooks.example", addresses))
                .startsWith("host hooks.example resolves to fd00:0:0:0:0:0:0:1, which is not a public address: fc00::/7");
    }

    @Test
    void aNameThatDoesNotResolveIsRefused() {
        assertThat(PublicAddresses.problemWith("no-such-host.invalid")).contains("does not resolve");
    }
}
