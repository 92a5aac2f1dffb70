package dev.mailqueue.it.apps;

import jakarta.ejb.ActivationConfigProperty;
import jakarta.ejb.MessageDriven;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageListener;
import jakarta.jms.TextMessage;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Another application's message-driven bean on the queue's server, as the README shows one: it listens to
 * the delivery events' topic and keeps each message's {@code eventId}, {@code type} property and text, in
 * arrival order, for {@link EventsServlet}. (On Liberty its activation spec is the test server's
 * {@code <jmsActivationSpec>} for events-subscriber/EventSubscriber.)
 */
@MessageDriven(activationConfig = {
        @ActivationConfigProperty(propertyName = "destinationType", propertyValue = "jakarta.jms.Topic"),
        @ActivationConfigProperty(propertyName = "destinationLookup", propertyValue = "jms/mailqueue/events")
})
public class EventSubscriber implements MessageListener {

    /** What arrived: {@code eventId type text}, one line per message. */
    static final List<String> RECEIVED = new CopyOnWriteArrayList<>();

    @Override
    public void onMessage(Message message) {
        try {
            RECEIVED.add(message.getStringProperty("eventId") + " " + message.getStringProperty("type") + " "
                    + ((TextMessage) message).getText());
        } catch (JMSException e) {
            RECEIVED.add("unreadable " + e);
        }
    }
}
