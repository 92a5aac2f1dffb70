/**
 * The queue's metrics, published through the server's metrics API ({@link dev.mailqueue.metrics.control.Metrics}),
 * and those that read the database: queue depth per status.
 */
package dev.mailqueue.metrics.control;
