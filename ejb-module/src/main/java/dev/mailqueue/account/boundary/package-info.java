/** Checks at start-up that every configured SMTP account is a mail session the server really has. */
package dev.mailqueue.account.boundary;
