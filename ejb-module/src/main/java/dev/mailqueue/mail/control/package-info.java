/**
 * Enqueue's logic: validating a request (with the attachment and header rules), turning it into a row
 * with its Message-ID and its stored parts, and back into a view.
 */
package dev.mailqueue.mail.control;
