/**
 * The dispatch job's parts: claiming due mails under a lease, composing MIME messages, sending them
 * over a reused SMTP connection, and recording each attempt's outcome only while the lease is held.
 */
package dev.mailqueue.dispatch.control;
