package dev.mailqueue.dispatch.control;

import dev.mailqueue.mail.entity.MailMessage;
import dev.mailqueue.schema.control.DatabaseKind;
import jakarta.persistence.EntityManager;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.LocalDateTime;
import java.util.List;

/**
 * How a claim picks and locks due rows on one kind of database, in the claim's transaction. Two
 * kinds: {@link SkipLockedLease} where the database can skip rows another claimer holds (PostgreSQL,
 * MariaDB 10.6+), so claimers never wait for each other; {@link CursorLease} everywhere
 * else (Derby and databases not tested here), which locks with a plain {@code FOR UPDATE} cursor.
 */
interface LeaseStrategy {

    /**
     * Leases up to {@code limit} due rows: SENDING, {@code owner}, {@code expiresAt}.
     *
     * @param em         the claim transaction's entity manager
     * @param connection the same transaction's JDBC connection
     * @param owner      the lease owner to write
     * @param expiresAt  UTC lease expiry to write
     * @param now        UTC now: due means not_before &lt;= now
     * @param limit      most rows to lease, 1 or more
     * @return the ids leased; empty when none are due (or all due rows are held by other claimers)
     * @throws SQLException when the database refuses, e.g. a lock timeout
     */
    List<Long> lease(EntityManager em, Connection connection, String owner, LocalDateTime expiresAt,
                     LocalDateTime now, int limit) throws SQLException;

    /** Picks SENDING rows whose lease expired; {@code ?}: now. */
    String PICK_EXPIRED = "SELECT ID, LEASE_OWNER, SEND_STARTED_AT, ATTEMPTS_REMAINING FROM MAIL_MESSAGE"
            + " WHERE STATUS = 'SENDING' AND LEASE_EXPIRES_AT < ?";

    /**
     * Finds SENDING rows whose lease expired before {@code now} (their claimer died or hung), for
     * {@link LeaseRecovery} to take back. By default a plain read: the take-back is conditional on the
     * lease, so two claimers that find the same row cannot both take it.
     *
     * @param connection the claim transaction's JDBC connection
     * @param now        UTC now
     * @return the expired leases found
     * @throws SQLException when the database refuses
     */
    default List<ExpiredLease> findExpired(Connection connection, LocalDateTime now) throws SQLException {
        return ExpiredLease.read(connection, PICK_EXPIRED, now);
    }

    /**
     * @param databaseProductName {@link java.sql.DatabaseMetaData#getDatabaseProductName()}
     * @return the strategy for that database
     */
    static LeaseStrategy forDatabase(String databaseProductName) {
        return DatabaseKind.of(databaseProductName).skipsLocked() ? new SkipLockedLease() : new CursorLease();
    }
}
