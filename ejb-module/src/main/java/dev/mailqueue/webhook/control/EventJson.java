package dev.mailqueue.webhook.control;

import dev.mailqueue.api.EventRecord;
import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;

/**
 * The JSON of a delivery event: {@code id} ({@code evt_<number>}, the same on every redelivery), {@code type}
 * ({@link dev.mailqueue.api.EventType#wireName()}), {@code occurredAt}, and, where known, {@code mailId},
 * {@code messageId}, {@code recipient} (the one recipient it concerns; absent when it concerns every
 * recipient of {@code recipients} not named in an event of its own), {@code recipients}, {@code reply}
 * ({@code code}, {@code enhancedStatus}, {@code text}), {@code nextAttemptAt}, {@code reference},
 * {@code campaign} and {@code tags}. Times are ISO-8601 UTC. A webhook body wraps it as the Standard Webhooks
 * payload: {@code {"type", "timestamp", "data"}}.
 */
public final class EventJson {

    private EventJson() {
    }

    /** @return the webhook-id and the {@code id} of an event */
    public static String id(EventRecord e) {
        return "evt_" + e.id();
    }

    /**
     * @param e an event
     * @return its JSON object
     */
    public static JsonObject of(EventRecord e) {
        JsonObjectBuilder o = Json.createObjectBuilder()
                .add("id", id(e))
                .add("type", e.type().wireName())
                .add("occurredAt", e.occurredAt().toString());
        if (e.mailId() != null) {
            o.add("mailId", e.mailId());
        }
        if (e.messageId() != null) {
            o.add("messageId", e.messageId());
        }
        if (e.recipient() != null) {
            o.add("recipient", e.recipient());
        }
        if (!e.recipients().isEmpty()) {
            JsonArrayBuilder all = Json.createArrayBuilder();
            e.recipients().forEach(all::add);
            o.add("recipients", all);
        }
        if (e.replyCode() != null || e.enhancedStatus() != null || e.detail() != null) {
            JsonObjectBuilder reply = Json.createObjectBuilder();
            if (e.replyCode() != null) {
                reply.add("code", e.replyCode());
            }
            if (e.enhancedStatus() != null) {
                reply.add("enhancedStatus", e.enhancedStatus());
            }
            if (e.detail() != null) {
                reply.add("text", e.detail());
            }
            o.add("reply", reply);
        }
        if (e.nextAttemptAt() != null) {
            o.add("nextAttemptAt", e.nextAttemptAt().toString());
        }
        if (e.reference() != null) {
            o.add("reference", e.reference());
        }
        if (e.campaign() != null) {
            o.add("campaign", e.campaign());
        }
        if (!e.tags().isEmpty()) {
            JsonArrayBuilder tags = Json.createArrayBuilder();
            e.tags().forEach(tags::add);
            o.add("tags", tags);
        }
        return o.build();
    }

    /**
     * @param e an event
     * @return the webhook body: {@code {"type": <type>, "timestamp": <occurredAt>, "data": <the event>}}
     */
    public static String webhookBody(EventRecord e) {
        return Json.createObjectBuilder()
                .add("type", e.type().wireName())
                .add("timestamp", e.occurredAt().toString())
                .add("data", of(e))
                .build().toString();
    }
}
