/**
 * What the store keeps and reads: the mail's tables as JPA entities (content, recipients, attachments,
 * headers, the log, and the read-only MAIL_STATE view), the types of their columns (attempt outcomes, recipient
 * statuses, address lists, UTC times) and the key of a mail's parts. Values that no table maps live beside the
 * stores that take them ({@code queue.control}).
 */
package dev.mailqueue.queue.entity;
