package dev.mailqueue.queue.control;

import dev.mailqueue.api.MailStatus;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Acts on a campaign's mail at once: pause (the claim leaves its QUEUED mail alone, on every server,
 * since the pause is a row of CAMPAIGN_PAUSE), resume, and cancel everything of it that is still waiting.
 * Every method runs in the caller's transaction.
 */
@ApplicationScoped
public class CampaignStore {

    /** What a campaign cancel cancels: mail that is waiting, for its time or for an operator. */
    public static final Set<MailStatus> WAITING = MailLifecycle.CANCELLABLE;

    @Inject
    QueueTables tables;

    @Inject
    OperatorStore operations;

    /**
     * @param tables     the queue's tables
     * @param operations the operator's store on the same tables
     * @return a store on them, for use outside a container
     */
    public static CampaignStore on(QueueTables tables, OperatorStore operations) {
        CampaignStore store = new CampaignStore();
        store.tables = tables;
        store.operations = operations;
        return store;
    }

    /** @return the paused campaigns, read on the caller's connection (the claim reads them with the other pauses: {@link DispatchPauseStore}) */
    static List<String> paused(Connection c) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT CAMPAIGN FROM CAMPAIGN_PAUSE")) {
            List<String> names = new ArrayList<>();
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    names.add(r.getString(1));
                }
            }
            return names;
        }
    }

    /**
     * @return the paused campaigns, by name
     * @throws StoreException when the database fails
     */
    public List<String> paused() {
        try (Connection c = tables.connect()) {
            return paused(c).stream().sorted().toList();
        } catch (SQLException e) {
            throw new StoreException("could not read the paused campaigns", e);
        }
    }

    /**
     * Pauses a campaign: from the commit on, no server claims its mail; mail being sent now finishes.
     *
     * @param campaign the campaign
     * @param by       who paused it
     * @param now      now
     * @return true when it was running, false when it was paused already
     * @throws StoreException when the database fails
     */
    public boolean pause(String campaign, String by, Instant now) {
        try (Connection c = tables.connect()) {
            if (paused(c).contains(campaign)) {
                return false;
            }
            try (PreparedStatement s = c.prepareStatement("INSERT INTO CAMPAIGN_PAUSE (CAMPAIGN, PAUSED_AT, PAUSED_BY)"
                    + " VALUES (?, ?, ?)")) {
                s.setString(1, campaign);
                SqlTime.set(s, 2, now);
                Sql.setText(s, 3, by);
                s.executeUpdate();
            }
            return true;
        } catch (SQLException e) {
            throw new StoreException("could not pause campaign " + campaign, e);
        }
    }

    /**
     * @return true when the campaign was paused and runs again
     * @throws StoreException when the database fails
     */
    public boolean resume(String campaign) {
        try (Connection c = tables.connect();
             PreparedStatement s = c.prepareStatement("DELETE FROM CAMPAIGN_PAUSE WHERE CAMPAIGN = ?")) {
            s.setString(1, campaign);
            return s.executeUpdate() == 1;
        } catch (SQLException e) {
            throw new StoreException("could not resume campaign " + campaign, e);
        }
    }

    /**
     * Cancels every mail of the campaign that is still waiting ({@link #WAITING}), each with a
     * {@code cancelled} event; mail being sent now is not stopped.
     *
     * @param server this server, for the log
     * @param actor  who cancels, for the log
     * @return mails cancelled
     * @throws StoreException when the database fails
     */
    public int cancel(String campaign, String server, String actor) {
        List<Long> ids;
        try (Connection c = tables.connect()) {
            ids = ids(c, campaign);
        } catch (SQLException e) {
            throw new StoreException("could not find the mail of campaign " + campaign, e);
        }
        return operations.cancel(ids, WAITING, server, actor); // it reads their status and cancels the waiting ones
    }

    /**
     * @return the campaign's mails by status
     * @throws StoreException when the database fails
     */
    public java.util.Map<MailStatus, Long> counts(String campaign) {
        java.util.Map<MailStatus, Long> counts = new java.util.EnumMap<>(MailStatus.class);
        try (Connection c = tables.connect()) {
            for (List<Long> chunk : Sql.chunks(ids(c, campaign))) {
                StateReads.statuses(c, chunk).values().forEach(status -> counts.merge(status, 1L, Long::sum));
            }
            return counts;
        } catch (SQLException e) {
            throw new StoreException("could not count the mail of campaign " + campaign, e);
        }
    }

    /**
     * The ids of a campaign's mails (the index on the campaign), whose state the callers then read by id
     * ({@link StateReads#statuses}, the view MAIL_STATE), one IN list at a time. Derby does not carry a join's
     * condition into the view, so joining MAIL_MESSAGE to MAIL_STATE on the campaign worked out the state of every
     * mail in the database (seconds for some ten thousand mails).
     */
    private static List<Long> ids(Connection c, String campaign) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT ID FROM MAIL_MESSAGE WHERE CAMPAIGN = ? ORDER BY ID")) {
            s.setString(1, campaign);
            return Sql.readIds(s);
        }
    }
}
