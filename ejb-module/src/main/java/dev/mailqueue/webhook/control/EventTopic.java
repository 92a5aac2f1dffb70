package dev.mailqueue.webhook.control;

import dev.mailqueue.settings.control.Settings;
import dev.mailqueue.api.EventRecord;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;

import javax.naming.InitialContext;
import javax.naming.NamingException;
import java.util.List;
import java.util.logging.Logger;

/**
 * The Jakarta Messaging topic that delivery events are published to, where the server has a messaging
 * provider: the connection factory and the topic whose JNDI names the settings
 * {@code mailqueue.events.topic.connection-factory} and {@code mailqueue.events.topic} give. When either is missing (WildFly's
 * {@code standalone.xml} has no messaging, for one), or a setting is blank, events go to no topic and
 * nothing else changes. Each event is one text message: the webhook body
 * ({@link EventJson#webhookBody}), with the string properties {@code eventId}, {@code type} and, where
 * the mail has one, {@code campaign}, and the long property {@code mailId}, for message selectors.
 */
@ApplicationScoped
public class EventTopic {

    private static final Logger LOG = Logger.getLogger(EventTopic.class.getName());

    /** Publishes events; implemented on the Jakarta Messaging API, which is loaded only when a topic exists. */
    interface Sender {
        /**
         * @param events events to publish, in order
         * @throws RuntimeException when the messaging provider refuses a message; the ones before it went out
         */
        void send(List<EventRecord> events);
    }

    /** How long a failed lookup is not tried again, ns: the resources may come up after the application. */
    private static final long LOOKUP_PAUSE_NANOS = 10_000_000_000L;

    private volatile Sender sender;
    private String factoryName;
    private String topic;
    private long nextLookup;
    private boolean toldMissing;

    @PostConstruct
    void read() {
        Settings settings = Settings.fromConfig(EventTopic.class);
        factoryName = settings.optional("mailqueue.events.topic.connection-factory").orElse("");
        topic = settings.optional("mailqueue.events.topic").orElse("");
        if (!configured()) {
            LOG.info("events: no Jakarta Messaging topic (mailqueue.events.topic or its connection factory is blank)");
        }
    }

    /** @return true when the settings name a topic and a connection factory (they may not exist on this server) */
    public boolean configured() {
        return !factoryName.isEmpty() && !topic.isEmpty();
    }

    /**
     * @return true when events are published to a topic: both names were found on this server. A name not
     *         found is looked up again at most every 10 s (the server may bind its messaging resources after
     *         the application started).
     */
    public boolean available() {
        if (sender == null && configured()) {
            lookUp();
        }
        return sender != null;
    }

    private synchronized void lookUp() {
        long now = System.nanoTime();
        if (sender != null || now - nextLookup < 0) {
            return;
        }
        try {
            InitialContext context = new InitialContext();
            Object factory = context.lookup(factoryName);
            Object destination = context.lookup(topic);
            sender = JmsTopicSender.of(factory, destination);
            LOG.info(() -> "events: published to the Jakarta Messaging topic " + topic + " (connection factory "
                    + factoryName + ")");
        } catch (NamingException | LinkageError | ClassCastException e) {
            nextLookup = now + LOOKUP_PAUSE_NANOS;
            if (!toldMissing) {
                toldMissing = true;
                LOG.info(() -> "events: no Jakarta Messaging topic " + topic + " with connection factory " + factoryName
                        + " on this server (" + e + "); events go to no topic until both are there (looked up again"
                        + " every 10 s)");
            }
        }
    }

    /** @return the topic's JNDI name */
    public String name() {
        return topic;
    }

    /**
     * Publishes events, outside any transaction, each at once (at least once: a crash before the topic's
     * cursor moves past them publishes them again, with the same {@code eventId}).
     *
     * @param events events in log order
     * @throws IllegalStateException when no topic is available
     * @throws RuntimeException      when the provider refuses a message
     */
    public void send(List<EventRecord> events) {
        if (sender == null) {
            throw new IllegalStateException("no Jakarta Messaging topic for events");
        }
        sender.send(events);
    }
}
