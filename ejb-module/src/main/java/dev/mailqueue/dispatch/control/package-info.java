/**
 * The dispatch job's parts: claimers that take due mails under a renewed lease, the composer of MIME
 * messages, SMTP delivery outside any transaction over pooled connections, and the outcome journal that
 * group-commits each mail's outcome and holds the end of a claimer's next DATA until that outcome is
 * committed.
 */
package dev.mailqueue.dispatch.control;
