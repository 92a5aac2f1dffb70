/**
 * How an SMTP account logs in when its relay takes no password: an OAuth2 access token per account (RFC 6749
 * client credentials, RFC 7523 JWT bearer), fetched with the Nimbus OAuth 2.0 SDK, kept while it is fresh, renewed
 * before it expires and after the relay refused it, and given to the relay as the password of SASL {@code XOAUTH2}.
 * A token or a secret never reaches a log line, a metric, an event or the console.
 */
package dev.mailqueue.login.control;
