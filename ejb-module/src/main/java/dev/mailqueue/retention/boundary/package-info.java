/** The timer that starts the retention job, which deletes mails in a final state after a number of days. */
package dev.mailqueue.retention.boundary;
