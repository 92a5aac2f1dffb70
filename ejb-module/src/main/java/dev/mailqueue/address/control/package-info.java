/**
 * E-mail addresses as people write them (a mailbox with its display name, IDNA domains, SMTPUTF8 local
 * parts), and the addresses the queue makes itself: VERP envelope senders that name a mail and recipient,
 * and the simulator's reserved recipients.
 */
package dev.mailqueue.address.control;
