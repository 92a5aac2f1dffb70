/**
 * The grammar of a message's header section (RFC 5322 §2.1, §2.2) as the queue reads it, once for every use: the
 * check at enqueue and the composition at sending split a raw message into the same header lines, so what the
 * queue checked is what it sends.
 */
package dev.mailqueue.mime;
