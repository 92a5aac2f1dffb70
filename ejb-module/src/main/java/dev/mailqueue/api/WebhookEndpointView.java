package dev.mailqueue.api;

import java.net.URI;
import java.time.Instant;
import java.util.Set;

/**
 * A webhook endpoint as the admin API shows it: its configuration without the secret, its health as the
 * servers share it, its cursor in the log, and its parked deliveries.
 *
 * @param name          its name ({@code mailqueue.webhooks})
 * @param url           where events are posted
 * @param events        the event types it receives
 * @param campaigns     the campaigns it is limited to; empty for every mail
 * @param failingSince  since when its deliveries fail, or null while they succeed
 * @param disabledAt    when it was disabled for failing too long, or null: nothing is sent to a disabled
 *                      endpoint until an operator enables it
 * @param lastSuccessAt its last successful delivery, or null
 * @param pending       parked deliveries still to go (waiting, or backing off), 0 or more
 * @param failed        parked deliveries given up, 0 or more
 * @param cursor        where its cursor stands in the log (a transaction id on PostgreSQL, a log id on Derby
 *                      and MariaDB), or null before its first round
 * @param cursorMovedAt when its cursor last moved, or null
 */
public record WebhookEndpointView(String name, URI url, Set<EventType> events, Set<String> campaigns,
                                  Instant failingSince, Instant disabledAt, Instant lastSuccessAt, long pending,
                                  long failed, Long cursor, Instant cursorMovedAt) {

    /** Copies the sets. */
    public WebhookEndpointView {
        events = Set.copyOf(events);
        campaigns = Set.copyOf(campaigns);
    }

    /** @return true when it is disabled: nothing is sent to it until it is enabled */
    public boolean disabled() {
        return disabledAt != null;
    }
}
