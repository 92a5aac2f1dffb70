/** The queue's tables as JPA entities: one row per mail, per delivery attempt, per attachment and per custom header. */
package dev.mailqueue.mail.entity;
