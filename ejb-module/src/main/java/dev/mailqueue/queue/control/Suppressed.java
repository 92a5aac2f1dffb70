package dev.mailqueue.queue.control;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Which recipients of mails about to be enqueued are on the suppression list for all mail: one query per
 * enqueue (per 500 distinct addresses), on the list's primary key, in the enqueue's transaction.
 */
final class Suppressed {

    /** Most addresses an IN list binds: under Oracle's 1,000 expressions and SQL Server's 2,100 parameters. */
    private static final int IN_LIST = 500;

    private Suppressed() {
    }

    /**
     * @return the addresses (normalised as {@link SuppressionStore#normalise}) among the mails' recipients
     *         that are suppressed for all mail
     */
    static Set<String> among(Connection c, List<MailGroup> groups) throws SQLException {
        Set<String> addresses = new LinkedHashSet<>();
        for (MailGroup group : groups) {
            for (NewMail mail : group.mails()) {
                for (List<String> list : List.of(mail.to(), mail.cc(), mail.bcc())) {
                    list.forEach(a -> addresses.add(SuppressionStore.normalise(a)));
                }
            }
        }
        Set<String> suppressed = new HashSet<>();
        List<String> all = new ArrayList<>(addresses);
        for (int from = 0; from < all.size(); from += IN_LIST) {
            List<String> part = all.subList(from, Math.min(all.size(), from + IN_LIST));
            try (PreparedStatement s = c.prepareStatement("SELECT ADDRESS FROM SUPPRESSION WHERE SCOPE = '"
                    + SuppressionStore.ALL + "' AND ADDRESS IN (" + Sql.marks(part.size()) + ")")) {
                for (int i = 0; i < part.size(); i++) {
                    s.setString(i + 1, part.get(i));
                }
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        suppressed.add(r.getString(1));
                    }
                }
            }
        }
        return suppressed;
    }

    /** @return the mail's recipients, as given, that are in {@code suppressed} */
    static List<String> recipients(NewMail mail, Set<String> suppressed) {
        if (suppressed.isEmpty()) {
            return List.of();
        }
        List<String> result = new ArrayList<>();
        for (List<String> list : List.of(mail.to(), mail.cc(), mail.bcc())) {
            for (String address : list) {
                if (suppressed.contains(SuppressionStore.normalise(address))) {
                    result.add(address);
                }
            }
        }
        return result;
    }

    /** @return how many recipients the mail has */
    static int count(NewMail mail) {
        return mail.to().size() + mail.cc().size() + mail.bcc().size();
    }
}
