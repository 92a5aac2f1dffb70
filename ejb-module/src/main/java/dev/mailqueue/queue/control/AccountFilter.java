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
 * @param accounts    the accounts whose mails may be claimed
 * @param nullAllowed true when mail without an account (queued before accounts existed, sent through
 *                    the default account) may be claimed
 */
public record AccountFilter(List<String> accounts, boolean nullAllowed) {

    /**
     * @param known          the accounts this server has
     * @param skipped        those to leave alone now
     * @param defaultAccount the default account's name
     * @return the filter
     */
    public static AccountFilter of(Collection<String> known, Collection<String> skipped, String defaultAccount) {
        return new AccountFilter(known.stream().filter(a -> !skipped.contains(a)).toList(), !skipped.contains(defaultAccount));
    }

    /** Copies the list. */
    public AccountFilter {
        accounts = List.copyOf(accounts);
    }

    /** @return the SQL condition, starting with " AND" */
    String sql() {
        if (accounts.isEmpty()) {
            return nullAllowed ? " AND SMTP_ACCOUNT IS NULL" : " AND 1 = 0";
        }
        String in = "SMTP_ACCOUNT IN (" + Sql.marks(accounts.size()) + ")";
        return nullAllowed ? " AND (" + in + " OR SMTP_ACCOUNT IS NULL)" : " AND " + in;
    }

    /** @return the next parameter index after binding the names from {@code index} on */
    int bind(PreparedStatement statement, int index) throws SQLException {
        for (String name : accounts) {
            statement.setString(index++, name);
        }
        return index;
    }
}
