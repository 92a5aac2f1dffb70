package dev.mailqueue.queue.control;

import dev.mailqueue.schema.control.DatabaseKind;

/**
 * What the stores need to know of one database.
 *
 * @param kind       the database
 * @param lease      how a claim locks rows on it
 * @param mailIds    ids of new mails, in blocks of the mail sequence
 * @param attemptIds ids of attempt-log rows, in blocks of the attempt sequence
 */
record Dialect(DatabaseKind kind, LeaseStrategy lease, IdBlocks mailIds, IdBlocks attemptIds) {
}
