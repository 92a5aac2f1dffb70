/**
 * Bounces that come back later: reading the bounce mailbox ({@link dev.mailqueue.bounce.control.BounceMailboxReader}),
 * classifying what is there ({@link dev.mailqueue.bounce.control.BounceClassifier}: Delivery Status
 * Notifications, RFC 3464, and complaints, ARF, RFC 5965), and recording each report once
 * ({@link dev.mailqueue.bounce.control.BounceRecorder}).
 */
package dev.mailqueue.bounce.control;
