package dev.mailqueue.account.control;

import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * One SMTP account: a container {@code <mailSession>} bound as {@code mail/<name>}, which holds host,
 * port, credentials, timeouts and the envelope sender ({@code mail.smtp.from}, the RFC 5321 MAIL FROM
 * that becomes Return-Path). What the queue adds is configuration (MicroProfile Config, see
 * {@link AccountSettings}): where mail fails over to, which sender domains it serves, and its rate
 * limits.
 *
 * @param name          1 to 64 characters of {@code A-Z a-z 0-9 _ -}
 * @param failover      accounts tried next, in this order, when this one is unreachable (SQL Server
 *                      Database Mail's profile: an ordered list of accounts); never contains {@code name}
 * @param senderDomains lower-case domains of From addresses routed to this account
 * @param perMinute     most sends in any window of {@code window} (60 s unless configured), over all servers; 0
 *                      means no limit
 * @param perDay        most sends per UTC calendar day, over all servers; 0 means no limit
 * @param bounceAddress where reports about its mail go, {@code local@domain}, made a VERP envelope sender per
 *                      mail ({@code local+<token>@domain}, see {@code dev.mailqueue.address.control.VerpAddress});
 *                      null when the session's envelope sender is used as it is
 * @param refusesSmtpUtf8 true when mail routed to it may not have an address with a non-ASCII local part
 *                      (refused at enqueue, for a relay that never offers SMTPUTF8, RFC 6531); false when such
 *                      a recipient is tried and fails alone if the server does not offer SMTPUTF8
 * @param window        the sliding window of the per-minute limit, {@link RateRules#MIN_WINDOW} to
 *                      {@link RateRules#WINDOW} (60 s, the default): shorter only where a test must not wait
 *                      out real minutes
 * @param relay         how it hands mail on: SMTP through its mail session (the default), the Amazon SES API or
 *                      Microsoft Graph (no mail session; {@code refusesSmtpUtf8} is then true: the queue sends them
 *                      no SMTPUTF8 address)
 */
public record Account(String name, List<String> failover, Set<String> senderDomains, int perMinute, int perDay,
                      String bounceAddress, boolean refusesSmtpUtf8, Duration window, RelayKind relay) {

    /** Longest account name: the width of the SMTP_ACCOUNT columns. */
    public static final int NAME_CHARS = 64;

    public Account {
        failover = List.copyOf(failover);
        senderDomains = Set.copyOf(senderDomains);
        if (window.compareTo(RateRules.MIN_WINDOW) < 0 || window.compareTo(RateRules.WINDOW) > 0) {
            throw new IllegalArgumentException("window of account " + name + " must be " + RateRules.MIN_WINDOW
                    + " to " + RateRules.WINDOW + ", was " + window);
        }
        if (relay != RelayKind.SMTP && !refusesSmtpUtf8) {
            throw new IllegalArgumentException("account " + name + " sends through " + relay.value() + ", which takes"
                    + " no address with a non-ASCII local part: it must refuse them (smtputf8=refuse)");
        }
    }

    /** An SMTP account with a sliding window of its own. */
    public Account(String name, List<String> failover, Set<String> senderDomains, int perMinute, int perDay,
                   String bounceAddress, boolean refusesSmtpUtf8, Duration window) {
        this(name, failover, senderDomains, perMinute, perDay, bounceAddress, refusesSmtpUtf8, window, RelayKind.SMTP);
    }

    /** An account whose per-minute limit counts real 60 s windows. */
    public Account(String name, List<String> failover, Set<String> senderDomains, int perMinute, int perDay,
                   String bounceAddress, boolean refusesSmtpUtf8) {
        this(name, failover, senderDomains, perMinute, perDay, bounceAddress, refusesSmtpUtf8, RateRules.WINDOW);
    }

    /** An account that tries SMTPUTF8 addresses. */
    public Account(String name, List<String> failover, Set<String> senderDomains, int perMinute, int perDay,
                   String bounceAddress) {
        this(name, failover, senderDomains, perMinute, perDay, bounceAddress, false);
    }

    /** An account without a bounce address: its mail keeps the session's envelope sender. */
    public Account(String name, List<String> failover, Set<String> senderDomains, int perMinute, int perDay) {
        this(name, failover, senderDomains, perMinute, perDay, null);
    }

    /** @return true when the account sends over SMTP through its mail session {@link #jndiName()} */
    public boolean usesSmtp() {
        return relay == RelayKind.SMTP;
    }

    /** @return the JNDI name of the account's mail session: {@code mail/<name>} (SMTP accounts only) */
    public String jndiName() {
        return "mail/" + name;
    }

    /** @return true when each mail gets a VERP envelope sender made from {@link #bounceAddress} */
    public boolean usesVerp() {
        return bounceAddress != null;
    }

    /** @return true when sends must take a slot from the shared rate state first */
    public boolean isRateLimited() {
        return perMinute > 0 || perDay > 0;
    }
}
