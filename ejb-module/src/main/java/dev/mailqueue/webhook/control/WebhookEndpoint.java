package dev.mailqueue.webhook.control;

import dev.mailqueue.api.EventType;

import java.net.URI;
import java.util.Set;

/**
 * One receiver of delivery events, as an administrator configured it ({@link WebhookSettings}).
 *
 * @param name      its name, 1 to 64 of A-Z a-z 0-9 _ -
 * @param url       where events are POSTed, http or https
 * @param secret    the signing key ({@link WebhookSignature}), 24 to 64 bytes
 * @param events    the event types it wants; empty for all
 * @param campaigns the campaigns whose events it wants; empty for the events of every mail
 */
public record WebhookEndpoint(String name, URI url, byte[] secret, Set<EventType> events, Set<String> campaigns) {

    /** Copies the sets. */
    public WebhookEndpoint {
        secret = secret.clone();
        events = Set.copyOf(events);
        campaigns = Set.copyOf(campaigns);
    }

    /**
     * @param type     an event's type
     * @param campaign its mail's campaign, or null
     * @return true when this endpoint wants the event: its type is listed (or all are), and its mail is
     *         of a listed campaign (or none is listed)
     */
    public boolean wants(EventType type, String campaign) {
        return (events.isEmpty() || events.contains(type))
                && (campaigns.isEmpty() || campaign != null && campaigns.contains(campaign)); // Set.copyOf refuses contains(null)
    }

    @Override
    public String toString() { // never the secret
        return "WebhookEndpoint[" + name + " " + url + " events=" + events + " campaigns=" + campaigns + "]";
    }
}
