package dev.mailqueue.webhook.control;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.InetAddress;

import static org.assertj.core.api.Assertions.assertThat;

/** Which addresses a webhook may be sent to without mailqueue.webhook.allow-private-addresses. */
class PublicAddressesTest {

    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1", "127.8.9.10", "::1", "0.0.0.0", "0.1.2.3", "10.1.2.3", "172.16.0.1",
            "172.31.255.255", "192.168.1.1", "169.254.169.254", "100.64.0.1", "100.127.255.255", "fe80::1",
            "fc00::1", "fd12:3456::1", "224.0.0.1", "::"})
    void privateLoopbackLinkLocalAndSharedAddressesAreRefused(String address) throws Exception {
        assertThat(PublicAddresses.isPublic(InetAddress.getByName(address))).isFalse();
        assertThat(PublicAddresses.problemWith(address)).contains("not a public address");
    }

    @ParameterizedTest
    @ValueSource(strings = {"93.184.215.14", "8.8.8.8", "172.32.0.1", "100.128.0.1", "2606:4700::1111"})
    void publicAddressesAreAllowed(String address) throws Exception {
        assertThat(PublicAddresses.isPublic(InetAddress.getByName(address))).isTrue();
        assertThat(PublicAddresses.problemWith(address)).isNull();
    }

    @org.junit.jupiter.api.Test
    void aNameThatDoesNotResolveIsRefused() {
        assertThat(PublicAddresses.problemWith("no-such-host.invalid")).contains("does not resolve");
    }
}
