package dev.mailqueue.queue.control;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Dispatch pauses, shared by every server because they are rows of DISPATCH_PAUSE: the whole queue
 * (scope {@value Pauses#QUEUE}) or one SMTP account (scope {@code account:<name>}). While one holds, the claim
 * leaves the mail it covers alone ({@link AccountFilter#pausing}): it waits QUEUED, no attempt spent;
 * mail already claimed finishes. The claim reads these pauses together with the campaigns' in one query
 * ({@link Pauses#read}). Every method runs in the caller's transaction.
 */
@ApplicationScoped
public class DispatchPauseStore {

    @Inject
    QueueTables tables;

    /**
     * @param tables the queue's tables, e.g. on a data source of a test
     * @return a store on them, for use outside a container
     */
    public static DispatchPauseStore on(QueueTables tables) {
        DispatchPauseStore store = new DispatchPauseStore();
        store.tables = tables;
        return store;
    }

    /**
     * One pause as the operator set it.
     *
     * @param scope    {@value Pauses#QUEUE} or {@code account:<name>}
     * @param pausedAt when
     * @param pausedBy by whom, or null
     */
    public record Pause(String scope, Instant pausedAt, String pausedBy) {

        /** @return the account's name for an account's pause, else empty */
        public Optional<String> account() {
            return scope.startsWith(Pauses.ACCOUNT) ? Optional.of(scope.substring(Pauses.ACCOUNT.length())) : Optional.empty();
        }
    }

    /**
     * @return the dispatch pauses (queue and accounts), by scope
     * @throws StoreException when the database fails
     */
    public List<Pause> list() {
        try (Connection c = tables.connect(); PreparedStatement s = c.prepareStatement(
                "SELECT SCOPE, PAUSED_AT, PAUSED_BY FROM DISPATCH_PAUSE ORDER BY SCOPE"); ResultSet r = s.executeQuery()) {
            List<Pause> pauses = new ArrayList<>();
            while (r.next()) {
                pauses.add(new Pause(r.getString(1), SqlTime.get(r, 2), r.getString(3)));
            }
            return pauses;
        } catch (SQLException e) {
            throw new StoreException("could not read the dispatch pauses", e);
        }
    }

    /**
     * Pauses a scope: from the commit on, no server claims the mail it covers.
     *
     * @param scope {@value Pauses#QUEUE} or {@code account:<name>}
     * @param by    who paused it
     * @param now   now
     * @return true when it was running, false when it was paused already (the pause is kept as it was)
     * @throws StoreException when the database fails
     */
    public boolean pause(String scope, String by, Instant now) {
        try (Connection c = tables.connect()) {
            try (PreparedStatement s = c.prepareStatement("SELECT 1 FROM DISPATCH_PAUSE WHERE SCOPE = ?")) {
                s.setString(1, scope);
                try (ResultSet r = s.executeQuery()) {
                    if (r.next()) {
                        return false;
                    }
                }
            }
            try (PreparedStatement s = c.prepareStatement("INSERT INTO DISPATCH_PAUSE (SCOPE, PAUSED_AT, PAUSED_BY)"
                    + " VALUES (?, ?, ?)")) {
                s.setString(1, scope);
                SqlTime.set(s, 2, now);
                Sql.setText(s, 3, by);
                s.executeUpdate();
            }
            return true;
        } catch (SQLException e) {
            throw new StoreException("could not pause " + scope, e);
        }
    }

    /**
     * @param scope {@value Pauses#QUEUE} or {@code account:<name>}
     * @return true when it was paused and runs again
     * @throws StoreException when the database fails
     */
    public boolean resume(String scope) {
        try (Connection c = tables.connect();
             PreparedStatement s = c.prepareStatement("DELETE FROM DISPATCH_PAUSE WHERE SCOPE = ?")) {
            s.setString(1, scope);
            return s.executeUpdate() == 1;
        } catch (SQLException e) {
            throw new StoreException("could not resume " + scope, e);
        }
    }
}
