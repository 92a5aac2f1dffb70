package dev.mailqueue.it;

import javax.net.ssl.SSLSocket;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * A plain SMTP client for the tests that must say what a library would not: commands out of order, a DATA cut
 * off, a line of the test's choosing. It reads whole replies (the last line of a multi-line one) and can switch to
 * TLS after STARTTLS, trusting any certificate ({@link TrustingTls}).
 */
final class SmtpDialog implements AutoCloseable {

    private Socket socket;
    private BufferedReader in;
    private OutputStream out;
    private final String greeting;

    /** Connects and reads the greeting. */
    SmtpDialog(String host, int port) throws IOException {
        this(host, port, null);
    }

    /**
     * Connects from a local address of the test's choosing (another loopback address, 127.0.0.2, is another client
     * address to the server) and reads the greeting.
     */
    SmtpDialog(String host, int port, java.net.InetAddress local) throws IOException {
        socket = new Socket(host, port, local, 0);
        socket.setSoTimeout(20_000);
        streams();
        greeting = reply();
    }

    String greeting() {
        return greeting;
    }

    /** @return the reply to the line: every line of it, joined with newlines */
    String send(String line) throws IOException {
        write(line);
        return reply();
    }

    /** Writes a line (CRLF added) without reading a reply. */
    void write(String line) throws IOException {
        out.write((line + "\r\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    /** Writes bytes as they are. */
    void writeRaw(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** Says EHLO, STARTTLS, and EHLO again over TLS. @return the second EHLO's reply */
    String startTls() throws IOException {
        send("EHLO tests.example");
        String ready = send("STARTTLS");
        if (!ready.startsWith("220")) {
            throw new IOException("STARTTLS refused: " + ready);
        }
        SSLSocket tls = (SSLSocket) TrustingTls.context().getSocketFactory()
                .createSocket(socket, socket.getInetAddress().getHostAddress(), socket.getPort(), true);
        tls.startHandshake();
        socket = tls;
        streams();
        return send("EHLO tests.example");
    }

    /** @return the reply to AUTH PLAIN with the user's credentials (RFC 4616) */
    String login(TestUser user) throws IOException {
        return login(user.name(), user.password());
    }

    /** @return the reply to AUTH PLAIN with this user name and password (RFC 4616) */
    String login(String user, String password) throws IOException {
        return send("AUTH PLAIN " + Base64.getEncoder().encodeToString(("\0" + user + "\0" + password)
                .getBytes(StandardCharsets.UTF_8)));
    }

    /** @return a reply: its lines up to the one whose fourth character is a space (RFC 5321 §4.2.1) */
    String reply() throws IOException {
        StringBuilder all = new StringBuilder();
        String line;
        do {
            line = in.readLine();
            if (line == null) {
                throw new IOException("connection closed; so far: " + all);
            }
            all.append(all.isEmpty() ? "" : "\n").append(line);
        } while (line.length() > 3 && line.charAt(3) == '-');
        return all.toString();
    }

    private void streams() throws IOException {
        in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
        out = socket.getOutputStream();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
