/** SMTP submission into the queue: the listener, started and stopped with the application. */
package dev.mailqueue.submission.boundary;
