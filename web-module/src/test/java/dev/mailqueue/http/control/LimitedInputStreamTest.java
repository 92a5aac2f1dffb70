package dev.mailqueue.http.control;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

class LimitedInputStreamTest {

    /** What the server's HTTP channel throws while it reads a body: its own framing failure, or the end. */
    private static InputStream failingAfter(int bytes, IOException failure) {
        return new InputStream() {
            private int left = bytes;

            @Override
            public int read() throws IOException {
                if (left-- > 0) {
                    return 'x';
                }
                throw failure;
            }
        };
    }

    @Test
    void aChunkedBodyTheServerCannotReadIsA400NamingTransferEncoding() {
        LimitedInputStream body = new LimitedInputStream(failingAfter(3, new IOException("Illegal chunk length digit: 122")), 100, -1);

        RequestBodyException refused = catchThrowableOfType(() -> body.readAllBytes(), RequestBodyException.class);

        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.field()).isEqualTo("Transfer-Encoding");
        assertThat(refused.getMessage()).contains("after 3 bytes", "RFC 9112 7.1").doesNotContain("digit");
    }

    @Test
    void aBodyWithAContentLengthTheServerCannotReadIsA400NamingContentLength() {
        LimitedInputStream body = new LimitedInputStream(failingAfter(5, new IOException("connection reset")), 100, 20);

        RequestBodyException refused = catchThrowableOfType(() -> body.readAllBytes(), RequestBodyException.class);

        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.field()).isEqualTo("Content-Length");
        assertThat(refused.getMessage()).contains("5 of the 20 bytes");
    }

    @Test
    void aBodyThatEndsBeforeItsContentLengthIsStillNamedAsTruncated() {
        LimitedInputStream body = new LimitedInputStream(failingAfter(2, new EOFException()), 100, 10);

        RequestBodyException refused = catchThrowableOfType(() -> body.readAllBytes(), RequestBodyException.class);

        assertThat(refused.field()).isEqualTo("Content-Length");
        assertThat(refused.getMessage()).contains("ended after 2 of the 10 bytes");
    }

    @Test
    void aBodyOverTheLimitIsA413ForTheBodyAsAWhole() {
        LimitedInputStream body = new LimitedInputStream(new ByteArrayInputStream(new byte[50]), 10, -1);

        RequestBodyException refused = catchThrowableOfType(() -> body.readAllBytes(), RequestBodyException.class);

        assertThat(refused.status()).isEqualTo(413);
        assertThat(refused.field()).isEmpty();
    }
}
