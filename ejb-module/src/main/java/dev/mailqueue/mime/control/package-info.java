/**
 * {@link dev.mailqueue.mime.control.HeaderSection}, the one definition of a header line, and
 * {@link dev.mailqueue.mime.control.HeaderLimits}, the caps on a header section's fields and bytes.
 */
package dev.mailqueue.mime.control;
