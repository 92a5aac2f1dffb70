/**
 * SMTP accounts: which container mail sessions the queue may send through, which account a mail is
 * routed to and fails over to, and the per-account rate limits shared by all servers through the
 * database.
 */
package dev.mailqueue.account.control;
