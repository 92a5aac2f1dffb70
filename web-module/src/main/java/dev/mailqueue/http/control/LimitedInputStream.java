package dev.mailqueue.http.control;

import java.io.EOFException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * A request body that is counted while it is read, so a limit holds before the body is held whole:
 * reading past {@code limit} bytes throws a {@link RequestBodyException} with 413, and reaching the
 * end before the declared {@code Content-Length} throws one with 400 (a body that ends early is
 * incomplete, RFC 9112 §6.3, not a shorter request). The server's own failure to read the framing (a
 * chunked body against RFC 9112 §7.1: a chunk size that is not hex, chunk data not followed by CRLF, a
 * chunk cut short) is a 400 of the same kind: the client sent it, so it is never a server error.
 */
public class LimitedInputStream extends FilterInputStream {

    private final long limit;
    private final long declared;
    private long count;

    /**
     * @param in       the body
     * @param limit    most bytes allowed, 0 or more
     * @param declared the Content-Length, or -1 when none was given
     */
    public LimitedInputStream(InputStream in, long limit, long declared) {
        super(in);
        this.limit = limit;
        this.declared = declared;
    }

    @Override
    public int read() throws IOException {
        int b;
        try {
            b = super.read();
        } catch (EOFException e) {
            throw truncated();
        } catch (RequestBodyException e) {
            throw e;
        } catch (IOException e) {
            throw unreadable();
        }
        account(b < 0 ? -1 : 1);
        return b;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
        int n;
        try {
            n = super.read(buffer, offset, length);
        } catch (EOFException e) {
            throw truncated(); // Liberty reports a body that ends early as an EOFException
        } catch (RequestBodyException e) {
            throw e;
        } catch (IOException e) {
            throw unreadable(); // Liberty: IllegalHttpBodyException for a chunk size that is not hex
        }
        account(n);
        return n;
    }

    @Override
    public long skip(long n) throws IOException {
        long skipped = super.skip(n);
        account(skipped);
        return skipped;
    }

    @Override
    public boolean markSupported() {
        return false;
    }

    /** @return bytes read so far */
    public long count() {
        return count;
    }

    private RequestBodyException truncated() {
        return declared >= 0
                ? new RequestBodyException(400, "Content-Length",
                        "the body ended after " + count + " of the " + declared + " bytes its Content-Length announced")
                : new RequestBodyException(400, "Transfer-Encoding", "the body ended before its last chunk");
    }

    /** The server could not read the body's framing after {@link #count} bytes (the message names no content). */
    private RequestBodyException unreadable() {
        return declared >= 0
                ? new RequestBodyException(400, "Content-Length",
                        "the body could not be read after " + count + " of the " + declared + " bytes its Content-Length announced")
                : new RequestBodyException(400, "Transfer-Encoding", "the chunked body could not be read after " + count
                        + " bytes: RFC 9112 7.1 wants each chunk as its size in hex, CRLF, that many bytes, CRLF, and a last chunk of size 0");
    }

    private void account(long n) throws IOException {
        if (n < 0) {
            if (declared >= 0 && count < declared) {
                throw truncated();
            }
            return;
        }
        count += n;
        if (count > limit) {
            throw new RequestBodyException(413, "", "the body is longer than " + limit + " bytes");
        }
    }
}
