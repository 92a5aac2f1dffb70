package dev.mailqueue.mail.control;

import dev.mailqueue.api.FieldError;
import dev.mailqueue.api.MailRequest;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.Config;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;

/**
 * Which From addresses a user may send as, so the queue is no open relay. The allow-list of user
 * {@code u} is the MicroProfile Config property {@code mailqueue.security.allowed-from.u}: a comma
 * separated list of entries, each
 * <ul>
 *   <li>an address, {@code orders@shop.example}: exactly that address (the domain compared without
 *       regard to case, RFC 5321 §2.4; the local part exactly);</li>
 *   <li>a domain with a leading {@code @}, {@code @shop.example}: any address at that domain (not its
 *       subdomains);</li>
 *   <li>{@code *}: any address.</li>
 * </ul>
 * A user without the property may send as nobody. Administrators ({@code mail-admin}) may send as any
 * address. In Liberty the properties are {@code <variable>}s of server.xml or environment variables.
 */
@ApplicationScoped
public class SenderPolicy {

    /** The property prefix; the user name follows it. */
    public static final String PREFIX = "mailqueue.security.allowed-from.";

    /** The allow-list of a user, by user name; the application's MicroProfile Config in production. */
    Function<String, Optional<String>> allowLists;

    @Inject
    void useConfig(Config config) {
        allowLists = user -> config.getOptionalValue(PREFIX + user, String.class);
    }

    /**
     * @param user    the caller's principal name
     * @param admin   whether the caller has the role {@code mail-admin} (then everything is allowed)
     * @param request the mail, already validated (a bare address in {@code from})
     * @param field   how the From field is named in errors: {@code from}, or {@code [3].from} in a batch
     * @return the refused field, or empty when the user may send as the mail's From address
     */
    public Optional<FieldError> check(String user, boolean admin, MailRequest request, String field) {
        if (admin || allows(user, request.getFrom())) {
            return Optional.empty();
        }
        return Optional.of(new FieldError(field, "user " + user + " may not send as " + request.getFrom()
                + " (see " + PREFIX + user + ")"));
    }

    /**
     * @param user the caller's principal name
     * @param from a bare address, {@code local@domain}
     * @return whether the user's allow-list has an entry that matches {@code from}
     */
    boolean allows(String user, String from) {
        int at = from.lastIndexOf('@');
        if (at <= 0) {
            return false;
        }
        String local = from.substring(0, at);
        String domain = from.substring(at + 1).toLowerCase(Locale.ROOT);
        for (String entry : entries(user)) {
            if (entry.equals("*")) {
                return true;
            }
            int entryAt = entry.lastIndexOf('@');
            if (entryAt < 0) {
                continue;
            }
            String entryLocal = entry.substring(0, entryAt);
            String entryDomain = entry.substring(entryAt + 1).toLowerCase(Locale.ROOT);
            if (entryDomain.equals(domain) && (entryLocal.isEmpty() || entryLocal.equals(local))) {
                return true;
            }
        }
        return false;
    }

    private List<String> entries(String user) {
        List<String> entries = new ArrayList<>();
        allowLists.apply(user).ifPresent(list -> {
            for (String entry : list.split(",")) {
                if (!entry.isBlank()) {
                    entries.add(entry.strip());
                }
            }
        });
        return entries;
    }
}
