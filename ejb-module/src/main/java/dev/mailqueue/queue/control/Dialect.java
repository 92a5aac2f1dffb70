package dev.mailqueue.queue.control;

import dev.mailqueue.schema.control.DatabaseKind;

/**
 * What the stores need to know of one database.
 *
 * @param kind  the database
 * @param lease how a claim takes rows on it
 */
record Dialect(DatabaseKind kind, LeaseStrategy lease) {
}
