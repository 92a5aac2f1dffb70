/**
 * The store: every statement that changes where a mail is in its lifecycle. Content is written once, at
 * enqueue ({@link dev.mailqueue.queue.control.EnqueueStore}: MAIL_MESSAGE and its parts); what changes while
 * a mail waits lives in the narrow MAIL_QUEUE row, which {@link dev.mailqueue.queue.control.ClaimStore}
 * claims under a claimer's lease (MAIL_CLAIMER) and {@link dev.mailqueue.queue.control.OutcomeStore} finishes
 * or reschedules; every change is also one insert-only row of the log (MAIL_ATTEMPT, written by
 * {@link dev.mailqueue.queue.control.AttemptLog}), which is the mail's history and the source of its events
 * ({@link dev.mailqueue.queue.control.EventStore}). Operators, campaigns, bounces and suppressions change mail
 * through {@link dev.mailqueue.queue.control.OperatorStore}, {@link dev.mailqueue.queue.control.CampaignStore},
 * {@link dev.mailqueue.queue.control.BounceStore} and {@link dev.mailqueue.queue.control.SuppressionStore}.
 * <p>
 * {@link dev.mailqueue.queue.control.MailLifecycle} owns the statuses, their transitions and every set of
 * statuses anything uses; {@link dev.mailqueue.queue.control.Transition} decides what an attempt's outcome
 * leads to, and {@link dev.mailqueue.queue.control.LeaseStrategy} how a database locks what a claim takes.
 * The architecture test keeps writes to the mail's state tables in this package.
 */
package dev.mailqueue.queue.control;
