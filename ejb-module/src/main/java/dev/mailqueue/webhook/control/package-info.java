/**
 * Webhooks: the endpoints an administrator configured, the Standard Webhooks signature, the guard against
 * requests to private addresses, the JSON of an event, and the pass that hands events to the endpoints; and
 * the publishers' own tables, a store each: cursors in the mails' log ({@link dev.mailqueue.webhook.control.EventCursorStore}),
 * parked deliveries ({@link dev.mailqueue.webhook.control.WebhookDeliveryStore}), endpoint health
 * ({@link dev.mailqueue.webhook.control.WebhookEndpointStore}) and the lease of the pass
 * ({@link dev.mailqueue.webhook.control.WorkLeaseStore}). The events themselves are the queue's
 * ({@link dev.mailqueue.queue.control.EventStore}).
 */
package dev.mailqueue.webhook.control;
