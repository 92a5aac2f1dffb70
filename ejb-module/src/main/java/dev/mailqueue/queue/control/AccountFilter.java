package dev.mailqueue.queue.control;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.Set;

/**
 * Which SMTP accounts' mails a claim leaves in the queue: those whose accounts cannot send now (every
 * account of their failover list is cooling down after a failed connection), so a claimer does not take
 * mail only to hand it back.
 *
 * @param skipped        accounts whose mails are left alone
 * @param defaultSkipped true when the default account is among them: rows queued before accounts existed
 *                       (SMTP_ACCOUNT NULL) go through it and are left alone too
 */
public record AccountFilter(List<String> skipped, boolean defaultSkipped) {

    /** Every account's mail may be claimed. */
    public static final AccountFilter NONE = new AccountFilter(List.of(), false);

    /**
     * @param skipped        account names
     * @param defaultAccount the default account's name
     * @return the filter
     */
    public static AccountFilter skipping(Set<String> skipped, String defaultAccount) {
        return skipped.isEmpty() ? NONE : new AccountFilter(List.copyOf(skipped), skipped.contains(defaultAccount));
    }

    /** Copies the list. */
    public AccountFilter {
        skipped = List.copyOf(skipped);
    }

    /** @return the SQL condition, starting with " AND", or empty */
    String sql() {
        if (skipped.isEmpty()) {
            return "";
        }
        String notIn = "SMTP_ACCOUNT NOT IN (" + LeaseStrategy.marks(skipped.size()) + ")";
        return defaultSkipped ? " AND SMTP_ACCOUNT IS NOT NULL AND " + notIn : " AND (SMTP_ACCOUNT IS NULL OR " + notIn + ")";
    }

    /** @return the next parameter index after binding the names from {@code index} on */
    int bind(PreparedStatement statement, int index) throws SQLException {
        for (String name : skipped) {
            statement.setString(index++, name);
        }
        return index;
    }
}
