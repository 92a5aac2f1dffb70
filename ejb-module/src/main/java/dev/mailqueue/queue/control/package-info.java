/**
 * The queue's state and its rules. Every statement that changes a mail is in one of four stores on
 * {@link dev.mailqueue.queue.control.QueueTables}: {@link dev.mailqueue.queue.control.EnqueueStore}
 * (enqueue, idempotency keys), {@link dev.mailqueue.queue.control.ClaimStore} (claim under a lease, take
 * back expired leases, renew), {@link dev.mailqueue.queue.control.OutcomeStore} (what claimers report)
 * and {@link dev.mailqueue.queue.control.OperatorStore} (requeue, cancel, delete, retention). Status
 * literals appear in SQL only here, every change of a leased row is conditional on its lease, and every
 * operator change on the statuses it applies to, so no two writers can undo each other's work.
 * {@link dev.mailqueue.queue.control.Transition} decides what an attempt's outcome leads to,
 * {@link dev.mailqueue.queue.control.RetryPolicy} when a mail is tried again, and
 * {@link dev.mailqueue.queue.control.LeaseStrategy} how a database locks the rows a claim takes.
 */
package dev.mailqueue.queue.control;
