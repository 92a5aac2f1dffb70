package dev.mailqueue.submission.control;

import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;

import static org.assertj.core.api.Assertions.assertThat;

/** Where a password may travel: over TLS always; in clear only from loopback, and only when that is allowed. */
class SubmissionAuthenticationTest {

    private static final InetSocketAddress LOOPBACK = new InetSocketAddress("127.0.0.1", 40_000);
    private static final InetSocketAddress REMOTE = new InetSocketAddress("192.0.2.7", 40_000);

    @Test
    void inClearOnlyALoopbackClientMayLogInAndOnlyWhenAllowed() {
        assertThat(SubmissionAuthentication.mayAuthenticate(false, REMOTE, true)).as("remote, in clear, loopback allowed")
                .isFalse();
        assertThat(SubmissionAuthentication.mayAuthenticate(false, LOOPBACK, true)).isTrue();
        assertThat(SubmissionAuthentication.mayAuthenticate(false, LOOPBACK, false)).isFalse();
        assertThat(SubmissionAuthentication.mayAuthenticate(true, REMOTE, false)).as("over TLS").isTrue();
    }
}
