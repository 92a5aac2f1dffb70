package dev.mailqueue.account.control;

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
 * @param perMinute     most sends in any 60 s window, over all servers; 0 means no limit
 * @param perDay        most sends per UTC calendar day, over all servers; 0 means no limit
 * @param bounceAddress where reports about its mail go, {@code local@domain}, made a VERP envelope sender per
 *                      mail ({@code local+<token>@domain}, see {@code dev.mailqueue.address.control.VerpAddress});
 *                      null when the session's envelope sender is used as it is
 * @param refusesSmtpUtf8 true when mail routed to it may not have an address with a non-ASCII local part
 *                      (refused at enqueue, for a relay that never offers SMTPUTF8, RFC 6531); false when such
 *                      a recipient is tried and fails alone if the server does not offer SMTPUTF8
 */
public record Account(String name, List<String> failover, Set<String> senderDomains, int perMinute, int perDay,
                      String bounceAddress, boolean refusesSmtpUtf8) {

    /** Longest account name: the width of the SMTP_ACCOUNT columns. */
    public static final int NAME_CHARS = 64;

    public Account {
        failover = List.copyOf(failover);
        senderDomains = Set.copyOf(senderDomains);
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

    /** @return the JNDI name of the account's mail session: {@code mail/<name>} */
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
