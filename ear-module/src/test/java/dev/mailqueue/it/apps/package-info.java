/**
 * Small applications the integration tests deploy beside the queue: another enterprise application
 * that calls the remote EJB, and a probe that reads and arranges queue rows the way a dead worker
 * would leave them.
 */
package dev.mailqueue.it.apps;
