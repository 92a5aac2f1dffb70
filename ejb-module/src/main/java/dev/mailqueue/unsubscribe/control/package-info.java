/**
 * One-click unsubscribe (RFC 8058): the signed token that names a recipient and a list, and the
 * List-Unsubscribe header fields (RFC 2369) that carry its URL.
 */
package dev.mailqueue.unsubscribe.control;
