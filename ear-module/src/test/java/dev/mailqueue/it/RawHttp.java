package dev.mailqueue.it;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * HTTP/1.1 over a plain socket, for requests the JDK client will not send: two Content-Length fields,
 * a body shorter than its Content-Length, a malformed header, an undecodable path. The request is
 * sent as given (with {@code Connection: close}); the answer is read until the server closes, or, by
 * {@link #sendForAnswer}, only until its end.
 */
final class RawHttp {

    private RawHttp() {
    }

    /** A parsed answer. Header names in lower case. */
    record Answer(int status, Map<String, String> headers, String body) {

        String contentType() {
            return headers.get("content-type");
        }
    }

    /**
     * @param head     request line and header fields, each line without CRLF, the last one included
     *                 (no empty line)
     * @param body     the body bytes to send after the empty line, possibly fewer than declared
     * @param halfClose whether to shut the socket's output down after the body, as a client that sent all it had
     * @return the answer
     */
    static Answer send(String head, byte[] body, boolean halfClose) {
        return exchange(head, body, halfClose, false);
    }

    /**
     * Sends as {@link #send} does (no half-close), but reads only the first answer, up to the end of its
     * body as its Content-Length or chunked encoding marks it: for a request the server answers while it
     * keeps the connection open for a body the client never sends.
     *
     * @return the first answer
     */
    static Answer sendForAnswer(String head, byte[] body) {
        return exchange(head, body, false, true);
    }

    private static Answer exchange(String head, byte[] body, boolean halfClose, boolean firstAnswerOnly) {
        int port = Integer.parseInt(System.getProperty("it.http.port", "9181"));
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(20_000);
            OutputStream out = socket.getOutputStream();
            out.write((head.replace("\n", "\r\n") + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            out.write(body);
            out.flush();
            if (halfClose) {
                socket.shutdownOutput();
            }
            return parse(readAll(socket.getInputStream(), firstAnswerOnly));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] readAll(InputStream in, boolean firstAnswerOnly) throws IOException {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        try {
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                all.write(buffer, 0, n);
                if (firstAnswerOnly && answerComplete(all.toString(StandardCharsets.ISO_8859_1))) {
                    break;
                }
            }
        } catch (SocketTimeoutException e) {
            // the server kept the connection open after its answer: what arrived is the answer
        }
        return all.toByteArray();
    }

    /** @return whether the text holds a whole answer: its head and as much body as the head announces */
    private static boolean answerComplete(String text) {
        int end = text.indexOf("\r\n\r\n");
        if (end < 0) {
            return false;
        }
        String head = text.substring(0, end).toLowerCase(Locale.ROOT);
        if (head.contains("\r\ntransfer-encoding: chunked")) {
            return text.endsWith("\r\n0\r\n\r\n");
        }
        int length = head.indexOf("\r\ncontent-length:");
        if (length < 0) {
            return false; // the body ends where the connection does
        }
        int lineEnd = head.indexOf("\r\n", length + 2);
        String value = head.substring(length + "\r\ncontent-length:".length(), lineEnd < 0 ? head.length() : lineEnd).strip();
        return text.length() - end - 4 >= Integer.parseInt(value);
    }

    private static Answer parse(byte[] raw) {
        String text = new String(raw, StandardCharsets.UTF_8);
        int end = text.indexOf("\r\n\r\n");
        if (end < 0) {
            throw new IllegalStateException("no HTTP answer: " + text);
        }
        String[] lines = text.substring(0, end).split("\r\n");
        int status = Integer.parseInt(lines[0].split(" ")[1]);
        Map<String, String> headers = new TreeMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            headers.put(lines[i].substring(0, colon).strip().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).strip());
        }
        String body = text.substring(end + 4);
        if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            body = unchunk(body);
        }
        return new Answer(status, headers, body);
    }

    private static String unchunk(String chunked) {
        StringBuilder body = new StringBuilder();
        int at = 0;
        while (at < chunked.length()) {
            int lineEnd = chunked.indexOf("\r\n", at);
            int size = Integer.parseInt(chunked.substring(at, lineEnd).split(";")[0].strip(), 16);
            if (size == 0) {
                break;
            }
            body.append(chunked, lineEnd + 2, lineEnd + 2 + size);
            at = lineEnd + 2 + size + 2;
        }
        return body.toString();
    }
}
