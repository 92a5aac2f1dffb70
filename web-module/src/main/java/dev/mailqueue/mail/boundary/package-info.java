/** The REST boundary of the queue: the mails resource and the mappers that turn errors into RFC 9457 problems. */
package dev.mailqueue.mail.boundary;
