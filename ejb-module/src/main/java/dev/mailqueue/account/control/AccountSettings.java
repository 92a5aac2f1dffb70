package dev.mailqueue.account.control;

import dev.mailqueue.settings.control.Settings;
import dev.mailqueue.address.control.VerpAddress;
import dev.mailqueue.address.control.VerpToken;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Reads the account configuration from named settings (MicroProfile Config in the server; server.xml
 * variables or environment variables such as {@code MAILQUEUE_ACCOUNT_BULK_RATE_PER_MINUTE}):
 * <ul>
 *   <li>{@code mailqueue.accounts}: account names, comma separated; the first is the default account.
 *       Default {@code mailqueue}, the session {@code mail/mailqueue} every installation has.</li>
 *   <li>{@code mailqueue.account.<name>.failover}: accounts to try next, in order, when this one is
 *       unreachable. Default none: mail is never sent through an account nobody chose for it.</li>
 *   <li>{@code mailqueue.account.<name>.sender-domains}: From domains routed to this account, comma
 *       separated, matched exactly and without regard to case. Default none.</li>
 *   <li>{@code mailqueue.account.<name>.rate.per-minute}: most sends in any 60 s window, 0 (default)
 *       for no limit.</li>
 *   <li>{@code mailqueue.account.<name>.rate.window.ms}: the length of that sliding window in ms, 1,000 to
 *       60,000 (unset: {@link RateRules#WINDOW}, a real minute). Shorter only where a test must not wait out real minutes: the
 *       limit then counts sends per this window.</li>
 *   <li>{@code mailqueue.account.<name>.rate.per-day}: most sends per UTC calendar day, 0 (default)
 *       for no limit.</li>
 *   <li>{@code mailqueue.account.<name>.bounce-address}: the mailbox that reports (DSNs, RFC 3464) about
 *       the account's mail go to, e.g. {@code bounces@example.com}; each mail then gets the VERP envelope
 *       sender {@code bounces+<token>@example.com} ({@link VerpAddress}). Default none: the session's
 *       envelope sender as it is.</li>
 *   <li>{@code mailqueue.account.<name>.smtputf8}: {@code try} (default) sends an address with a non-ASCII
 *       local part when the server offers SMTPUTF8 (RFC 6531) and fails that recipient alone when it does not;
 *       {@code refuse} refuses such addresses at enqueue, for a relay that never offers it.</li>
 *   <li>{@code mailqueue.account.<name>.relay}: {@code smtp} (default) sends through the mail session
 *       {@code mail/<name>}; {@code ses} through the Amazon SES API ({@code mailqueue.account.<name>.ses.*},
 *       {@code dev.mailqueue.ses.control.SesSettings}); {@code graph} through Microsoft Graph {@code sendMail}
 *       ({@code mailqueue.account.<name>.graph.*}, {@code dev.mailqueue.graph.control.GraphSettings}, with an OAuth2
 *       login). The queue sends neither an SMTPUTF8 address: their {@code smtputf8} is {@code refuse}, and
 *       {@code try} is an error; a Graph account takes no bounce address.</li>
 *   <li>{@code mailqueue.bounce.verp-secret}: the server secret that authenticates VERP tokens
 *       ({@link VerpToken}), at least {@value VerpToken#MIN_SECRET_BYTES} octets; required when any account
 *       has a bounce address, and the same on every server of a queue. No default: never shipped.</li>
 * </ul>
 */
public final class AccountSettings {

    /** The setting that lists the accounts. */
    public static final String ACCOUNTS = "mailqueue.accounts";
    /**
     * The account of an installation that configures none: the session mail/mailqueue. The one place this default
     * is written: Liberty's server.xml and WildFly's configure.cli leave {@value #ACCOUNTS} unset, so an
     * installation that sets nothing gets this value through {@link #parse}'s fallback.
     */
    public static final String DEFAULT_ACCOUNTS = "mailqueue";

    /** The setting that holds the secret of VERP tokens. */
    public static final String VERP_SECRET = "mailqueue.bounce.verp-secret";

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1," + Account.NAME_CHARS + "}");

    private AccountSettings() {
    }

    /**
     * @return true for {@code refuse}, false for {@code try} or nothing (true for nothing on an SES account)
     * @throws IllegalStateException naming the setting for any other value, or for {@code try} on an SES account
     */
    private static boolean refusesSmtpUtf8(String key, Settings setting, RelayKind relay) {
        if (relay != RelayKind.SMTP) {
            String value = setting.optional(key).orElse("refuse");
            if (!value.equals("refuse")) {
                throw new IllegalStateException(key + ": '" + value + "', but the account sends through " + relay.value()
                        + ", to which the queue sends no address with a non-ASCII local part (RFC 6531): leave it unset"
                        + " or refuse");
            }
            return true;
        }
        String value = setting.optional(key).orElse("try");
        return switch (value) {
            case "try" -> false;
            case "refuse" -> true;
            default -> throw new IllegalStateException(key + ": '" + value + "' is neither try nor refuse");
        };
    }

    /**
     * @param source the value of a named setting, empty when it is not set
     * @return the accounts in the order {@code mailqueue.accounts} lists them; the first is the default
     * @throws IllegalStateException naming the setting at fault: a bad or repeated account name, a
     *                               failover to an unknown account or to itself, a sender domain
     *                               claimed by two accounts, a rate that is negative or not a number,
     *                               a bounce address that {@link VerpAddress#problem} refuses, a bounce
     *                               address without {@value #VERP_SECRET} or a secret too short, an
     *                               smtputf8 value other than try or refuse (or try on an SES account), a relay
     *                               other than smtp or ses
     */
    public static List<Account> parse(Function<String, Optional<String>> source) {
        Settings setting = Settings.of(source);
        List<String> names = Settings.items(setting.optional(ACCOUNTS).orElse(DEFAULT_ACCOUNTS));
        Set<String> known = new LinkedHashSet<>();
        for (String name : names) {
            if (!NAME.matcher(name).matches()) {
                throw new IllegalStateException(ACCOUNTS + ": account name '" + name
                        + "' must be 1 to " + Account.NAME_CHARS + " characters of A-Z a-z 0-9 _ -");
            }
            if (!known.add(name)) {
                throw new IllegalStateException(ACCOUNTS + ": account '" + name + "' is listed twice");
            }
        }
        Map<String, String> domainOwners = new HashMap<>();
        Map<String, Account> accounts = new LinkedHashMap<>();
        for (String name : names) {
            String prefix = "mailqueue.account." + name + ".";
            List<String> failover = setting.list(prefix + "failover");
            for (String next : failover) {
                if (!known.contains(next) || next.equals(name)) {
                    throw new IllegalStateException(prefix + "failover: '" + next
                            + "' is not another account of " + ACCOUNTS + " " + known);
                }
            }
            Set<String> domains = new LinkedHashSet<>();
            for (String domain : setting.list(prefix + "sender-domains")) {
                String lower = domain.toLowerCase(Locale.ROOT);
                String other = domainOwners.putIfAbsent(lower, name);
                if (other != null && !other.equals(name)) {
                    throw new IllegalStateException(prefix + "sender-domains: " + lower
                            + " is already routed to account " + other);
                }
                domains.add(lower);
            }
            RelayKind relay = RelayKind.parse(prefix + "relay", setting.optional(prefix + "relay").orElse(null));
            if (relay == RelayKind.GRAPH && setting.optional(prefix + "bounce-address").isPresent()) {
                throw new IllegalStateException(prefix + "bounce-address is set, but the account sends through Microsoft"
                        + " Graph, which takes no envelope sender: its bounces go to the mailbox that sends");
            }
            accounts.put(name, new Account(name, failover, domains,
                    count(prefix + "rate.per-minute", setting), count(prefix + "rate.per-day", setting),
                    bounceAddress(prefix + "bounce-address", setting),
                    refusesSmtpUtf8(prefix + "smtputf8", setting, relay), window(prefix + "rate.window.ms", setting),
                    relay));
        }
        List<Account> result = new ArrayList<>(accounts.values());
        verpToken(source, result);
        return result;
    }

    /**
     * @param setting  the value of a named setting, empty when it is not set
     * @param accounts the accounts {@link #parse} read
     * @return the VERP tokens under {@value #VERP_SECRET}; null when that is not set and no account has a
     *         bounce address (a secret without bounce addresses still verifies the tokens of reports that
     *         arrive after a bounce address was removed)
     * @throws IllegalStateException naming {@value #VERP_SECRET} when an account has a bounce address and
     *                               the secret is not set, or when it is shorter than
     *                               {@value VerpToken#MIN_SECRET_BYTES} octets; never showing it
     */
    public static VerpToken verpToken(Function<String, Optional<String>> setting, List<Account> accounts) {
        Optional<String> secret = setting.apply(VERP_SECRET).filter(s -> !s.isBlank());
        if (secret.isEmpty()) {
            Optional<Account> verp = accounts.stream().filter(Account::usesVerp).findFirst();
            if (verp.isPresent()) {
                throw new IllegalStateException(VERP_SECRET + " is not set, and mailqueue.account." + verp.get().name()
                        + ".bounce-address needs it to authenticate VERP tokens: set it to a random value of at least "
                        + VerpToken.MIN_SECRET_BYTES + " characters (e.g. openssl rand -hex 32), the same on every server,"
                        + " e.g. with the environment variable MAILQUEUE_BOUNCE_VERP_SECRET");
            }
            return null;
        }
        try {
            return new VerpToken(secret.get());
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(VERP_SECRET + ": " + e.getMessage(), e);
        }
    }

    private static String bounceAddress(String name, Settings setting) {
        String value = setting.optional(name).orElse("");
        if (value.isEmpty()) {
            return null;
        }
        String problem = VerpAddress.problem(value);
        if (problem != null) {
            throw new IllegalStateException(name + ": " + value + " " + problem);
        }
        int at = value.lastIndexOf('@');
        return value.substring(0, at) + "@" + value.substring(at + 1).toLowerCase(Locale.ROOT);
    }

    /** @return the rate limit named, 0 (no limit) when it is not set */
    private static int count(String name, Settings setting) {
        return (int) setting.whole(name, 0, Integer.MAX_VALUE, 0);
    }

    /**
     * @return the window named, {@link RateRules#WINDOW} when it is not set
     * @throws IllegalStateException naming the setting when it is not a whole number of ms from
     *                               {@link RateRules#MIN_WINDOW} to {@link RateRules#WINDOW}
     */
    private static Duration window(String name, Settings setting) {
        return Duration.ofMillis(setting.whole(name, RateRules.MIN_WINDOW.toMillis(), RateRules.WINDOW.toMillis(),
                RateRules.WINDOW.toMillis()));
    }
}
