package dev.mailqueue.queue.control;

import dev.mailqueue.schema.control.DatabaseKind;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The ids of the mails of one enqueue, and whether the suppression list holds anything, in one round trip where
 * the database allows it. MAIL_MESSAGE_SEQ steps by {@value #BLOCK} (sql/README.md): a value v read from it is the
 * top of the block v-49 .. v, the convention JPA providers use for an allocation size of 50. An enqueue takes whole
 * blocks of its own, so ids never collide between servers or with a provider writing to the same table; the ids of
 * a block it does not use are skipped, never reused (a BIGINT lasts some hundred thousand years at 500,000 ids a
 * second). Stateless.
 */
final class EnqueueIds {

    /** Ids per sequence value: the sequence's INCREMENT BY. */
    static final int BLOCK = 50;

    private EnqueueIds() {
    }

    /**
     * The ids and what the enqueue needs to know of the suppression list.
     *
     * @param ids            the ids, ascending
     * @param anySuppression false when the suppression list is empty: no recipient need be looked up
     */
    record Allocation(long[] ids, boolean anySuppression) {
    }

    /**
     * @param c     the enqueue transaction's connection
     * @param kind  the database
     * @param count ids wanted, 1 or more
     * @return the ids, and whether any address is suppressed: one statement on PostgreSQL and MariaDB
     *         ({@code SELECT nextval(...), EXISTS (SELECT 1 FROM SUPPRESSION) FROM <one row per block>}); on
     *         embedded Derby, where a statement costs no round trip, one per block and one for the list
     * @throws SQLException when the database refuses
     */
    static Allocation next(Connection c, DatabaseKind kind, int count) throws SQLException {
        int blocks = (count + BLOCK - 1) / BLOCK;
        long[] tops = new long[blocks];
        boolean anySuppression;
        if (kind == DatabaseKind.POSTGRESQL || kind == DatabaseKind.MARIADB) {
            String sql = kind == DatabaseKind.POSTGRESQL
                    ? "SELECT nextval('mail_message_seq'), EXISTS (SELECT 1 FROM suppression) FROM generate_series(1, ?)"
                    : "SELECT NEXTVAL(MAIL_MESSAGE_SEQ), EXISTS (SELECT 1 FROM SUPPRESSION) FROM seq_1_to_" + blocks;
            try (PreparedStatement s = c.prepareStatement(sql)) {
                if (kind == DatabaseKind.POSTGRESQL) {
                    s.setInt(1, blocks);
                }
                try (ResultSet r = s.executeQuery()) {
                    int i = 0;
                    boolean any = false;
                    while (r.next()) {
                        tops[i++] = r.getLong(1);
                        any = r.getBoolean(2);
                    }
                    anySuppression = any;
                }
            }
        } else {
            for (int i = 0; i < blocks; i++) {
                try (PreparedStatement s = c.prepareStatement(kind.nextValueQuery("MAIL_MESSAGE_SEQ"));
                     ResultSet r = s.executeQuery()) {
                    r.next();
                    tops[i] = r.getLong(1);
                }
            }
            try (PreparedStatement s = c.prepareStatement(kind.firstRows("SELECT 1 FROM SUPPRESSION ORDER BY ADDRESS", 1));
                 ResultSet r = s.executeQuery()) {
                anySuppression = r.next();
            }
        }
        java.util.Arrays.sort(tops);
        long[] ids = new long[count];
        for (int i = 0; i < count; i++) {
            ids[i] = tops[i / BLOCK] - BLOCK + 1 + i % BLOCK;
        }
        return new Allocation(ids, anySuppression);
    }
}
