package dev.mailqueue.it;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy on 127.0.0.1 in front of a real server (the test's database), so a test can take the
 * server away and bring it back without touching it: {@link #cut(Duration)} closes every connection
 * through the proxy and refuses new ones for a while, as a database restart does to its clients, then
 * listens again on the same port.
 */
final class TcpProxy implements AutoCloseable {

    private final int targetPort;
    private final int port;
    private final List<Socket> open = new CopyOnWriteArrayList<>();
    private volatile ServerSocket listener;
    private volatile boolean closed;

    private TcpProxy(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.listener = listen(0);
        this.port = listener.getLocalPort();
        accept(listener);
    }

    /** @return a proxy to 127.0.0.1:{@code targetPort}, listening on a free port */
    static TcpProxy to(int targetPort) throws IOException {
        return new TcpProxy(targetPort);
    }

    /** @return the port the proxy listens on */
    int port() {
        return port;
    }

    /**
     * Breaks every connection, refuses connections for {@code outage}, then listens again.
     *
     * @throws IOException when the port cannot be bound again
     */
    void cut(Duration outage) throws IOException, InterruptedException {
        ServerSocket was = listener;
        was.close();
        for (Socket s : open) {
            s.close();
        }
        open.clear();
        Thread.sleep(outage.toMillis());
        listener = listen(port);
        accept(listener);
    }

    private static ServerSocket listen(int port) throws IOException {
        ServerSocket socket = new ServerSocket();
        socket.setReuseAddress(true);
        socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
        return socket;
    }

    private void accept(ServerSocket on) {
        Thread acceptor = new Thread(() -> {
            while (!on.isClosed() && !closed) {
                try {
                    Socket client = on.accept();
                    Socket server = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                    open.add(client);
                    open.add(server);
                    pump(client, server);
                    pump(server, client);
                } catch (IOException e) {
                    return; // closed
                }
            }
        }, "proxy-accept-" + port);
        acceptor.setDaemon(true);
        acceptor.start();
    }

    private void pump(Socket from, Socket to) {
        Thread pump = new Thread(() -> {
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                byte[] buffer = new byte[16_384];
                for (int n; (n = in.read(buffer)) >= 0; ) {
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // one side closed
            } finally {
                try {
                    from.close();
                    to.close();
                } catch (IOException ignored) {
                    // closing anyway
                }
            }
        }, "proxy-pump");
        pump.setDaemon(true);
        pump.start();
    }

    @Override
    public void close() throws IOException {
        closed = true;
        listener.close();
        for (Socket s : open) {
            s.close();
        }
    }
}
