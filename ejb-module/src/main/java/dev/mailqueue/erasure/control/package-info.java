/**
 * The erasure job's artifacts ({@code mail-erasure}): which mails name the erased addresses, a window of ids at a
 * time, deleting them in bounded transactions, and the last move that empties the rest and completes the receipt.
 */
package dev.mailqueue.erasure.control;
