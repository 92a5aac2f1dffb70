/**
 * Accounts that send through the Amazon SES v2 API ({@code SendEmail} with raw content) instead of SMTP, for hosts
 * whose outbound SMTP ports are closed: each account's settings and its SDK client (the AWS SDK for Java v2 signs
 * the requests, SigV4; its retries are off, the queue decides every retry). The hand-over itself and how SES's
 * answers map to the delivery policy live in {@code dev.mailqueue.dispatch.control.SesRelay}.
 */
package dev.mailqueue.ses.control;
