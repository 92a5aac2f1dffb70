/**
 * What the store keeps and reads: the mail's tables as JPA entities (content, recipients, attachments,
 * headers, the log, and the read-only MAIL_STATE view), and the values the stores take and give (attempt
 * outcomes, recipient statuses, a classified bounce report).
 */
package dev.mailqueue.queue.entity;
