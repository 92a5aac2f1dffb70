package dev.mailqueue.webhook.control;

import dev.mailqueue.api.EventRecord;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.DeliveryMode;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.JMSProducer;
import jakarta.jms.TextMessage;
import jakarta.jms.Topic;

import java.util.List;

/**
 * Publishes events to a topic through the Jakarta Messaging 3.1 simplified API, persistent, one message
 * per event. The only class that names the API, so that a server without it never loads it.
 */
final class JmsTopicSender implements EventTopic.Sender {

    private final ConnectionFactory factory;
    private final Topic topic;

    private JmsTopicSender(ConnectionFactory factory, Topic topic) {
        this.factory = factory;
        this.topic = topic;
    }

    /**
     * @throws ClassCastException when the objects looked up are no connection factory and topic
     */
    static JmsTopicSender of(Object factory, Object topic) {
        return new JmsTopicSender((ConnectionFactory) factory, (Topic) topic);
    }

    @Override
    public void send(List<EventRecord> events) {
        try (JMSContext context = factory.createContext()) {
            JMSProducer producer = context.createProducer().setDeliveryMode(DeliveryMode.PERSISTENT);
            for (EventRecord e : events) {
                TextMessage message = context.createTextMessage(EventJson.webhookBody(e));
                message.setStringProperty("eventId", EventJson.id(e));
                message.setStringProperty("type", e.type().wireName());
                if (e.campaign() != null) {
                    message.setStringProperty("campaign", e.campaign());
                }
                if (e.mailId() != null) {
                    message.setLongProperty("mailId", e.mailId());
                }
                producer.send(topic, message);
            }
        } catch (JMSException e) {
            throw new IllegalStateException("could not publish an event to the topic: " + e.getMessage(), e);
        }
    }
}
