/** Enqueue's logic: validating a request, turning it into a row with its Message-ID, and back into a view. */
package dev.mailqueue.mail.control;
