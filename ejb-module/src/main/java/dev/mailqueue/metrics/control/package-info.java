/** The queue's MicroProfile metrics that read the database: queue depth per status. */
package dev.mailqueue.metrics.control;
