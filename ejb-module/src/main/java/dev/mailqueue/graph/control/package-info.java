/**
 * Accounts that send through Microsoft Graph {@code sendMail} with the MIME message instead of SMTP (Exchange Online
 * where SMTP AUTH is off): each account's settings (the mailbox it sends as, the Graph endpoint, timeouts) and the
 * HTTP client they share. The access token is the account's OAuth2 login ({@code dev.mailqueue.login}); the
 * hand-over itself and how Graph's answers count live in {@code dev.mailqueue.dispatch.control.GraphRelay}.
 */
package dev.mailqueue.graph.control;
