package dev.mailqueue.queue.control;

import dev.mailqueue.schema.control.DatabaseKind;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Hands out ids from one database sequence in blocks, so that one round trip to the sequence serves
 * {@value #BLOCK} inserts. The schema's sequences start at 50 and step by 50 (sql/README.md); a value v
 * read from one is the top of the block v-49 .. v, the convention JPA providers use for an allocation
 * size of 50, so ids never collide with a provider writing to the same table. Ids of a block that a
 * rolled-back insert took are skipped, never reused. Thread safe: one per sequence and server.
 */
final class IdBlocks {

    /** Ids per sequence value: the sequences' INCREMENT BY. */
    static final int BLOCK = 50;

    private final String sequence;
    private long next;
    private long last = -1;

    /** @param sequence the sequence, e.g. {@code MAIL_MESSAGE_SEQ} */
    IdBlocks(String sequence) {
        this.sequence = sequence;
    }

    /**
     * @param connection a connection of the caller's transaction
     * @param kind       the database, for the sequence's syntax
     * @param count      ids wanted, 0 or more
     * @return {@code count} fresh ids, ascending
     * @throws SQLException when the sequence cannot be read
     */
    synchronized long[] next(Connection connection, DatabaseKind kind, int count) throws SQLException {
        long[] ids = new long[count];
        for (int i = 0; i < count; i++) {
            if (next > last) {
                long top = nextValue(connection, kind);
                next = top - BLOCK + 1;
                last = top;
            }
            ids[i] = next++;
        }
        return ids;
    }

    private long nextValue(Connection connection, DatabaseKind kind) throws SQLException {
        try (PreparedStatement s = connection.prepareStatement(kind.nextValueQuery(sequence));
             ResultSet r = s.executeQuery()) {
            r.next();
            return r.getLong(1);
        }
    }
}
