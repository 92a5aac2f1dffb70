/**
 * The one-click unsubscribe endpoint (RFC 8058) that the links in mails of a list point at.
 */
package dev.mailqueue.unsubscribe.boundary;
