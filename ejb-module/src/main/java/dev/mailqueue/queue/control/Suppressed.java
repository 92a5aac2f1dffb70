package dev.mailqueue.queue.control;

import dev.mailqueue.address.control.SimulatorAddress;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Which recipients of mails about to be enqueued, or just claimed, are on the suppression list, for all
 * mail or for the mail's own list ({@link NewMail#unsubscribeList()}): one query per enqueue or claim (per
 * 500 distinct addresses), on the list's primary key, in that transaction; none while the list is empty (the
 * enqueue and the claim learn that in a statement they make anyway). The simulator's
 * {@code suppressed@} address ({@link SimulatorAddress}) counts as listed for all mail without a row. It also
 * says how the list keys an entry ({@link #normalise}, {@link #ALL}), for {@link SuppressionStore} and its callers.
 */
public final class Suppressed {

    /** The scope that covers all mail. */
    public static final String ALL = "*";

    private Suppressed() {
    }

    /**
     * @param address an address, {@code local@domain}
     * @return it as the list keys it: stripped, the domain in lower case
     */
    public static String normalise(String address) {
        String a = address.strip();
        int at = a.lastIndexOf('@');
        return at < 0 ? a : a.substring(0, at) + a.substring(at).toLowerCase(Locale.ROOT);
    }

    /**
     * @param addresses      addresses normalised as {@link #normalise}
     * @param anySuppression whether the suppression list holds anything: when not, no query is made
     * @param erased         the key erased addresses are kept under ({@link ErasureKey}), or null when erasure is not
     *                       set up: each address is looked up under its key too (half as many addresses a query)
     * @return those of them on the suppression list, each with the scopes it is suppressed in
     */
    static Map<String, Set<String>> scopes(Connection c, Set<String> addresses, boolean anySuppression,
                                           ErasureKey erased) throws SQLException {
        Map<String, Set<String>> suppressed = new HashMap<>();
        Map<String, String> addressOf = new HashMap<>(); // what is looked up -> the address it stands for
        for (String address : anySuppression ? addresses : Set.<String>of()) {
            addressOf.put(address, address);
            if (erased != null) {
                addressOf.put(erased.key(address), address);
            }
        }
        List<String> all = new ArrayList<>(addressOf.keySet());
        for (int from = 0; anySuppression && from < all.size(); from += Sql.IN_LIST) {
            List<String> part = all.subList(from, Math.min(all.size(), from + Sql.IN_LIST));
            try (PreparedStatement s = c.prepareStatement("SELECT ADDRESS, SCOPE FROM SUPPRESSION WHERE ADDRESS IN ("
                    + Sql.marks(part.size()) + ")")) {
                for (int i = 0; i < part.size(); i++) {
                    s.setString(i + 1, part.get(i));
                }
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        suppressed.computeIfAbsent(addressOf.get(r.getString(1)), a -> new HashSet<>())
                                .add(r.getString(2));
                    }
                }
            }
        }
        for (String address : addresses) { // the simulator's suppressed@ is listed for all mail, always
            if (SimulatorAddress.of(address) == SimulatorAddress.Kind.SUPPRESSED) {
                suppressed.computeIfAbsent(address, a -> new HashSet<>()).add(ALL);
            }
        }
        return suppressed;
    }

    /**
     * @param suppressed what {@link #scopes} found
     * @param address    an address as written
     * @param list       the mail's list, or null
     * @return true when the address is suppressed for all mail or for the list
     */
    static boolean covers(Map<String, Set<String>> suppressed, String address, String list) {
        Set<String> scopes = suppressed.get(normalise(address));
        return scopes != null && (scopes.contains(ALL) || list != null && scopes.contains(list));
    }

    /**
     * @param suppressed what {@link #among} found
     * @return the mail's recipients, as given, that are suppressed for all mail or for the mail's list
     */
    static List<String> recipients(NewMail mail, Map<String, Set<String>> suppressed) {
        if (suppressed.isEmpty()) {
            return List.of();
        }
        List<String> result = new ArrayList<>();
        for (List<String> list : List.of(mail.to(), mail.cc(), mail.bcc())) {
            for (String address : list) {
                if (covers(suppressed, address, mail.unsubscribeList())) {
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
