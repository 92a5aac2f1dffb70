/**
 * SMTP submission into the queue (RFC 6409): the settings, logins, mail transactions and replies of the listener,
 * which hands each message to the queue through the server's own REST API as the user that logged in.
 */
package dev.mailqueue.submission.control;
