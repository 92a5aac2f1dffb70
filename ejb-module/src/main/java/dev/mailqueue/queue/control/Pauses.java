package dev.mailqueue.queue.control;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What the claim must leave alone now, as one query read it on the claim's connection
 * ({@link #read}): everything when the queue is paused, else the mail of the paused
 * SMTP accounts and of the paused campaigns.
 *
 * @param queue     true when no mail is claimed at all
 * @param accounts  the paused SMTP accounts, by name
 * @param campaigns the paused campaigns, by name
 */
public record Pauses(boolean queue, Set<String> accounts, List<String> campaigns) {

    /** The scope of a pause of the whole queue. */
    public static final String QUEUE = "queue";

    /** The scope of an account's pause is this prefix and the account's name. */
    public static final String ACCOUNT = "account:";

    /**
     * Every pause the claim obeys, in one round trip: 1 and a campaign for each paused campaign, 2 and a
     * scope for each dispatch pause.
     */
    static final String ALL_PAUSES = "SELECT 1, CAMPAIGN FROM CAMPAIGN_PAUSE UNION ALL SELECT 2, SCOPE FROM DISPATCH_PAUSE";

    /** Nothing paused. */
    public static final Pauses NONE = new Pauses(false, Set.of(), List.of());

    /** Copies the collections. */
    public Pauses {
        accounts = Set.copyOf(accounts);
        campaigns = List.copyOf(campaigns);
    }

    /**
     * @param c the claim's connection
     * @return the pauses of the queue, the accounts and the campaigns, read with one query
     * @throws SQLException when the database fails
     */
    static Pauses read(Connection c) throws SQLException {
        boolean queue = false;
        Set<String> accounts = new HashSet<>();
        List<String> campaigns = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement(ALL_PAUSES); ResultSet r = s.executeQuery()) {
            while (r.next()) {
                String name = r.getString(2);
                if (r.getInt(1) == 1) {
                    campaigns.add(name);
                } else if (QUEUE.equals(name)) {
                    queue = true;
                } else if (name.startsWith(ACCOUNT)) {
                    accounts.add(name.substring(ACCOUNT.length()));
                }
            }
        }
        return new Pauses(queue, accounts, campaigns);
    }
}
