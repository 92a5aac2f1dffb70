/** Starts the bounce intake on a timer when a bounce mailbox is configured. */
package dev.mailqueue.bounce.boundary;
