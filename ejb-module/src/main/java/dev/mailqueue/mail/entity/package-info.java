/** The queue's tables as JPA entities: one row per mail, one row per delivery attempt. */
package dev.mailqueue.mail.entity;
