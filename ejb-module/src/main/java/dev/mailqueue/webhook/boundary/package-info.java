/** The timer that delivers delivery events to the configured webhook endpoints. */
package dev.mailqueue.webhook.boundary;
