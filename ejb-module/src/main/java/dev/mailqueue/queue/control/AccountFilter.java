package dev.mailqueue.queue.control;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Collection;
import java.util.List;

/**
 * Which SMTP accounts' mails a claim may take: those of the accounts this server has, less those that
 * cannot send now (every account of their failover list is cooling down after a failed connection). So a
 * claimer never takes mail only to hand it back, and servers that share a database but not their
 * accounts each send only the mail they can (a mail routed to an account no server has waits, and
 * expires at the end of its lifetime).
 *
 * <p>The claim narrows it by the pauses it reads on its own connection ({@link #pausing}): nothing while
 * the queue is paused, no mail of a paused account (mail without an account goes through the default
 * account, so it waits while that one is paused), and no mail of a paused campaign. Such mail waits as
 * QUEUED, with no attempt spent, until it is resumed.
 *
 * @param accounts        the accounts whose mails may be claimed
 * @param nullAllowed     true when mail without an account (queued before accounts existed, sent through
 *                        the default account) may be claimed
 * @param defaultAccount  the default account's name (its pause holds mail without an account too), or null
 * @param pausedCampaigns campaigns whose mail must not be claimed now
 */
public record AccountFilter(List<String> accounts, boolean nullAllowed, String defaultAccount,
                            List<String> pausedCampaigns) {

    /** A filter that leaves no campaign alone; the first account is the default one (as {@code Accounts} lists them). */
    public AccountFilter(List<String> accounts, boolean nullAllowed) {
        this(accounts, nullAllowed, accounts.isEmpty() ? null : accounts.get(0), List.of());
    }

    /**
     * @param known          the accounts this server has
     * @param skipped        those to leave alone now
     * @param defaultAccount the default account's name
     * @return the filter
     */
    public static AccountFilter of(Collection<String> known, Collection<String> skipped, String defaultAccount) {
        return new AccountFilter(known.stream().filter(a -> !skipped.contains(a)).toList(),
                !skipped.contains(defaultAccount), defaultAccount, List.of());
    }

    /** Copies the lists. */
    public AccountFilter {
        accounts = List.copyOf(accounts);
        pausedCampaigns = List.copyOf(pausedCampaigns);
    }

    /**
     * @param pauses what is paused now
     * @return the same filter, also leaving alone everything paused: all mail while the queue is, the mail
     *         of paused accounts (and mail without an account while the default account is) and of paused
     *         campaigns
     */
    AccountFilter pausing(Pauses pauses) {
        if (pauses.queue()) {
            return new AccountFilter(List.of(), false, defaultAccount, List.of());
        }
        if (pauses.accounts().isEmpty() && pauses.campaigns().isEmpty()) {
            return this;
        }
        return new AccountFilter(accounts.stream().filter(a -> !pauses.accounts().contains(a)).toList(),
                nullAllowed && (defaultAccount == null || !pauses.accounts().contains(defaultAccount)), defaultAccount,
                pauses.campaigns());
    }

    /** @return true when no mail at all may be claimed: the claim need not look */
    boolean claimsNothing() {
        return accounts.isEmpty() && !nullAllowed;
    }

    /** @return the SQL condition, starting with " AND" */
    String sql() {
        String campaigns = pausedCampaigns.isEmpty() ? ""
                : " AND (CAMPAIGN IS NULL OR CAMPAIGN NOT IN (" + Sql.marks(pausedCampaigns.size()) + "))";
        if (accounts.isEmpty()) {
            return (nullAllowed ? " AND SMTP_ACCOUNT IS NULL" : " AND 1 = 0") + campaigns;
        }
        String in = "SMTP_ACCOUNT IN (" + Sql.marks(accounts.size()) + ")";
        return (nullAllowed ? " AND (" + in + " OR SMTP_ACCOUNT IS NULL)" : " AND " + in) + campaigns;
    }

    /** @return the next parameter index after binding the names from {@code index} on */
    int bind(PreparedStatement statement, int index) throws SQLException {
        for (String name : accounts) {
            statement.setString(index++, name);
        }
        for (String name : pausedCampaigns) {
            statement.setString(index++, name);
        }
        return index;
    }
}
