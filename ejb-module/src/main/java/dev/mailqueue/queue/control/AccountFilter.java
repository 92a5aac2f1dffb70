package dev.mailqueue.queue.control;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Collection;
import java.util.List;
import java.util.Map;

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
 * <p>Caps keep a claim from taking more of a rate-limited account's mail than the account may send now
 * ({@link #capping}): the claim takes each capped account's mail in a pick of its own, at most its cap, and
 * the rest in one more ({@code ClaimStore}), so that a backlog on a throttled account is not claimed only to
 * be handed back, and the other accounts' mail is not held behind it.
 *
 * @param pausedCampaigns campaigns whose mail must not be claimed now
 * @param caps            per account, the most of its mails a claim may take, 1 or more (an account that may
 *                        send nothing now is left out of {@code accounts} instead); empty for no caps
 */
public record AccountFilter(List<String> accounts, boolean nullAllowed, String defaultAccount,
                            List<String> pausedCampaigns, Map<String, Integer> caps) {

    /** A filter without caps. */
    public AccountFilter(List<String> accounts, boolean nullAllowed, String defaultAccount, List<String> pausedCampaigns) {
        this(accounts, nullAllowed, defaultAccount, pausedCampaigns, Map.of());
    }

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

    /** Copies the lists and checks the caps. */
    public AccountFilter {
        accounts = List.copyOf(accounts);
        pausedCampaigns = List.copyOf(pausedCampaigns);
        caps = Map.copyOf(caps);
        caps.forEach((account, cap) -> {
            if (cap < 1) {
                throw new IllegalArgumentException("cap of account " + account + " must be 1 or more: " + cap);
            }
        });
    }

    /**
     * @param caps per account, the most of its mails a claim may take now, 1 or more
     * @return the same filter with these caps
     * @throws IllegalArgumentException when a cap is below 1
     */
    public AccountFilter capping(Map<String, Integer> caps) {
        return new AccountFilter(accounts, nullAllowed, defaultAccount, pausedCampaigns, caps);
    }

    /**
     * @param account a capped account
     * @return the filter of that account's mail alone (with mail without an account when it is the default
     *         account), without caps
     */
    AccountFilter only(String account) {
        return new AccountFilter(accounts.contains(account) ? List.of(account) : List.of(),
                nullAllowed && account.equals(defaultAccount), defaultAccount, pausedCampaigns);
    }

    /** @return the filter of the mail of every account without a cap, without caps */
    AccountFilter uncapped() {
        return new AccountFilter(accounts.stream().filter(a -> !caps.containsKey(a)).toList(),
                nullAllowed && (defaultAccount == null || !caps.containsKey(defaultAccount)), defaultAccount,
                pausedCampaigns);
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
                pauses.campaigns(), caps);
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
