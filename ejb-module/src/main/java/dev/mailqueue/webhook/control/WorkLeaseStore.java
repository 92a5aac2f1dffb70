package dev.mailqueue.webhook.control;

import dev.mailqueue.queue.control.QueueTables;
import dev.mailqueue.queue.control.Sql;
import dev.mailqueue.queue.control.SqlTime;
import dev.mailqueue.queue.control.StoreException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;

/**
 * Leases of work that one server at a time does (WORK_LEASE), such as the webhook pass: a row per piece of work,
 * held by one owner until it runs out. Every method runs in the caller's transaction.
 */
@ApplicationScoped
public class WorkLeaseStore {

    @Inject
    QueueTables tables;

    /**
     * @param tables the queue's tables
     * @return a store on them, for use outside a container
     */
    public static WorkLeaseStore on(QueueTables tables) {
        WorkLeaseStore store = new WorkLeaseStore();
        store.tables = tables;
        return store;
    }

    /**
     * Takes or renews the lease of a piece of work that one server at a time does.
     *
     * @param work  the work's name, at most 64 characters
     * @param owner this server
     * @param now   now
     * @param until the lease's end
     * @return true when {@code owner} holds the lease until {@code until}
     * @throws StoreException when the database fails
     */
    public boolean lease(String work, String owner, Instant now, Instant until) {
        try (Connection c = tables.connect()) {
            Sql.ensureRow(c, "WORK_LEASE", "NAME", work);
            try (PreparedStatement s = c.prepareStatement("UPDATE WORK_LEASE SET OWNER = ?, EXPIRES_AT = ? WHERE NAME = ?"
                    + " AND (OWNER IS NULL OR OWNER = ? OR EXPIRES_AT < ?)")) {
                s.setString(1, owner);
                SqlTime.set(s, 2, until);
                s.setString(3, work);
                s.setString(4, owner);
                SqlTime.set(s, 5, now);
                return s.executeUpdate() == 1;
            }
        } catch (SQLException e) {
            throw new StoreException("could not lease " + work, e);
        }
    }
}
