/**
 * DKIM signing (RFC 6376): the signing keys of the sender domains this installation signs for, read from PEM
 * files named by settings, and the {@code DKIM-Signature} field of a message as the claimer sends it, made by
 * Apache James jDKIM.
 */
package dev.mailqueue.dkim;
