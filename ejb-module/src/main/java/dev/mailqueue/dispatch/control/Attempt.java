package dev.mailqueue.dispatch.control;

import dev.mailqueue.queue.control.ClaimedMail;

import java.time.Instant;

/**
 * One attempt of a claimed mail once it is composed and planned: what each account's try and the verdict read.
 *
 * @param mail    the claimed mail
 * @param started when the attempt began
 * @param plan    whom it is for
 * @param message its composed (and, where the queue signs, signed) message
 */
record Attempt(ClaimedMail mail, Instant started, RecipientPlan plan, GatedMessage message) {
}
