package dev.mailqueue.account.control;

import dev.mailqueue.settings.control.Settings;
import dev.mailqueue.address.control.VerpAddress;
import dev.mailqueue.address.control.VerpToken;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The configured SMTP accounts ({@link AccountSettings}), read once when first used, and the routing
 * rule: an account named on enqueue, else the account whose sender domains hold the From domain,
 * else the default account (the first listed).
 */
@ApplicationScoped
public class Accounts {

    private Map<String, Account> byName;
    private Account defaultAccount;
    private VerpToken verp;

    @PostConstruct
    void read() {
        Settings settings = Settings.fromConfig(Accounts.class);
        List<Account> accounts = AccountSettings.parse(settings::optional);
        use(accounts);
        verp = AccountSettings.verpToken(settings::optional, accounts);
    }

    /**
     * @param accounts 1 or more, the default first, e.g. from {@link AccountSettings#parse}
     * @return the accounts outside a container, e.g. in unit tests
     */
    public static Accounts of(List<Account> accounts) {
        return of(accounts, null);
    }

    /**
     * @param accounts 1 or more, the default first, e.g. from {@link AccountSettings#parse}
     * @param verp     the VERP tokens ({@link AccountSettings#verpToken}); null when no account uses VERP
     * @return the accounts outside a container, e.g. in unit tests
     */
    public static Accounts of(List<Account> accounts, VerpToken verp) {
        Accounts result = new Accounts();
        result.use(accounts);
        result.verp = verp;
        return result;
    }

    /**
     * @param account   an account the mail is sent through
     * @param mailId    the mail's id
     * @param recipient the position of the one recipient of this SMTP transaction among the mail's To, Cc and
     *                  Bcc, from 0
     * @return the VERP envelope sender (RFC 5321 MAIL FROM) of that recipient's copy through that account,
     *         {@code local+<token>@domain} ({@link VerpToken#of(long, int)}); null when the account has no
     *         bounce address, so that its session's envelope sender applies
     */
    public String envelopeSender(Account account, long mailId, int recipient) {
        return account.usesVerp() ? VerpAddress.of(account.bounceAddress(), verp.of(mailId, recipient)) : null;
    }

    /**
     * @param account an account the mail is sent through
     * @param mailId  the mail's id
     * @return the VERP envelope sender that names the mail and no recipient ({@link VerpToken#ofMail}), for a
     *         transaction that does not go to the mail's recipients (a redirected mail); null when the account
     *         has no bounce address
     */
    public String envelopeSenderOfMail(Account account, long mailId) {
        return account.usesVerp() ? VerpAddress.of(account.bounceAddress(), verp.ofMail(mailId)) : null;
    }

    /** @return the VERP tokens, to verify those of reports; empty when {@value AccountSettings#VERP_SECRET} is not set */
    public Optional<VerpToken> verp() {
        return Optional.ofNullable(verp);
    }

    private void use(List<Account> accounts) {
        Map<String, Account> map = new LinkedHashMap<>();
        accounts.forEach(a -> map.put(a.name(), a));
        byName = map;
        defaultAccount = accounts.get(0);
    }

    /** @return every account, the default first */
    public List<Account> all() {
        return new ArrayList<>(byName.values());
    }

    /** @return the names of every account, the default first */
    public List<String> names() {
        return List.copyOf(byName.keySet());
    }

    /** @return the account with that exact name, if configured */
    public Optional<Account> find(String name) {
        return Optional.ofNullable(name == null ? null : byName.get(name));
    }

    /** @return the account of mail that names none and whose sender domain no account claims */
    public Account defaultAccount() {
        return defaultAccount;
    }

    /**
     * @param explicit    the account the caller named, or null; must be configured (see {@link #find})
     * @param fromAddress the mail's From address, {@code local@domain}
     * @return the account the mail is routed to
     */
    public Account route(String explicit, String fromAddress) {
        if (explicit != null && !explicit.isBlank()) {
            return find(explicit.strip()).orElseThrow(() -> new IllegalArgumentException("unknown account " + explicit));
        }
        int at = fromAddress == null ? -1 : fromAddress.lastIndexOf('@');
        if (at >= 0) {
            String domain = fromAddress.substring(at + 1).toLowerCase(Locale.ROOT);
            for (Account account : byName.values()) {
                if (account.senderDomains().contains(domain)) {
                    return account;
                }
            }
        }
        return defaultAccount;
    }

    /**
     * @param name the account a mail was routed to; null (rows queued before accounts existed) means the default
     * @return the account followed by its failover accounts, in the order they are tried
     * @throws IllegalArgumentException when no account of that name is configured (any more)
     */
    public List<Account> profile(String name) {
        Account first = name == null ? defaultAccount : find(name).orElseThrow(() -> new IllegalArgumentException(
                "account " + name + " is not configured (any more); configured: " + byName.keySet()));
        List<Account> profile = new ArrayList<>();
        profile.add(first);
        first.failover().forEach(next -> profile.add(byName.get(next)));
        return profile;
    }
}
