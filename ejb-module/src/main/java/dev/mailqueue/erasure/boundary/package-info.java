/**
 * Erasure of people's data (GDPR art. 17): the operator's requests, each recorded with a receipt and carried out by
 * the {@code mail-erasure} batch job.
 */
package dev.mailqueue.erasure.boundary;
