package dev.mailqueue.transport;

import jakarta.mail.Provider;

/**
 * {@link QueueTransport} as a service ({@code META-INF/services/jakarta.mail.Provider}), for Jakarta Mail
 * implementations that find providers through {@link java.util.ServiceLoader}; the others read
 * {@code META-INF/javamail.providers}, which names the same class.
 */
public class QueueTransportProvider extends Provider {

    /** The transport of protocol {@value QueueTransport#PROTOCOL}. */
    public QueueTransportProvider() {
        super(Type.TRANSPORT, QueueTransport.PROTOCOL, QueueTransport.class.getName(), "mailqueue", null);
    }
}
