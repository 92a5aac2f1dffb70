/**
 * Webhooks: the endpoints an administrator configured, the Standard Webhooks signature, the guard against
 * requests to private addresses, the JSON of an event, and the pass that hands events to the endpoints.
 */
package dev.mailqueue.webhook.control;
