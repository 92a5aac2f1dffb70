package dev.mailqueue.mail.control;

import dev.mailqueue.settings.control.Settings;
import dev.mailqueue.address.control.Mailbox;
import dev.mailqueue.address.control.MailboxParser;
import dev.mailqueue.api.FieldError;
import dev.mailqueue.api.MailRequest;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.annotation.PostConstruct;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Which From addresses, and which SMTP accounts, a user may send with, so the queue is no open relay
 * and one sender cannot spend another's account (its reputation, its rate). The From allow-list of
 * user {@code u} is the MicroProfile Config property {@code mailqueue.security.allowed-from.u}: a comma
 * separated list of entries, each
 * <ul>
 *   <li>an address, {@code orders@shop.example}: exactly that address (the domain compared without
 *       regard to case, RFC 5321 §2.4; the local part exactly);</li>
 *   <li>a domain with a leading {@code @}, {@code @shop.example}: any address at that domain (not its
 *       subdomains);</li>
 *   <li>{@code *}: any address.</li>
 * </ul>
 * The account allow-list is {@code mailqueue.security.allowed-accounts.u}: account names, comma
 * separated, or {@code *} for every account. It governs only a mail that names its {@code account}; a
 * mail that names none goes where the server's routing sends it. The list allow-list is
 * {@code mailqueue.security.allowed-lists.u}: the mailing lists ({@code unsubscribeList}) the user owns, comma
 * separated, or {@code *}; one-click unsubscribe links name their list, so a sender who could name another's
 * list could have its recipients unsubscribed from it. A user without a property may send as nobody, may
 * name no account and no list. The template allow-list is {@code mailqueue.security.allowed-templates.u}: the
 * stored templates the user may enqueue mail from, comma separated, or {@code *}; unlike the others, a user
 * without it may use every template (as before the allow-list existed), so an operator who gives teams their own
 * templates sets it for every sender. Administrators ({@code mail-admin}) may use any address and any
 * account. A refusal names the field, never the other addresses or accounts. In Liberty the
 * properties are {@code <variable>}s of server.xml or environment variables.
 */
@ApplicationScoped
public class SenderPolicy {

    /** The property prefix of the From allow-list; the user name follows it. */
    public static final String PREFIX = "mailqueue.security.allowed-from.";

    /** The property prefix of the account allow-list; the user name follows it. */
    public static final String ACCOUNTS_PREFIX = "mailqueue.security.allowed-accounts.";

    /** The property prefix of the list allow-list; the user name follows it. */
    public static final String LISTS_PREFIX = "mailqueue.security.allowed-lists.";

    /**
     * The property prefix of the template allow-list; the user name follows it. Unset: every template.
     */
    public static final String TEMPLATES_PREFIX = "mailqueue.security.allowed-templates.";

    /** The allow-lists, read at each check; the application's MicroProfile Config in production. */
    Settings settings;

    @PostConstruct
    void read() {
        settings = Settings.fromConfig(SenderPolicy.class);
    }

    /**
     * @param user   the caller's principal name
     * @param admin  whether the caller has the role {@code mail-admin} (then everything is allowed)
     * @param parsed the mail, validated: its From mailbox's address is what is checked
     * @param field  how the From field is named in errors: {@code from}, or {@code [3].from} in a batch;
     *               the account and list fields are named alike ({@code account}, {@code [3].unsubscribeList})
     * @return the refused field (From first, then account, then list), or empty when the user may send the
     *         mail as it is
     */
    public Optional<FieldError> check(String user, boolean admin, ParsedRequest parsed, String field) {
        if (admin) {
            return Optional.empty();
        }
        Optional<FieldError> from = checkFrom(user, parsed.from(), field);
        if (from.isPresent()) {
            return from;
        }
        MailRequest request = parsed.request();
        String account = request.getAccount();
        if (account != null && !allowsAccount(user, account)) {
            String accountField = field.substring(0, field.length() - "from".length()) + "account";
            return Optional.of(new FieldError(accountField, "is not an SMTP account user " + user
                    + " may use (see " + ACCOUNTS_PREFIX + user + ")"));
        }
        String list = request.getUnsubscribeList();
        if (list != null && !listed(LISTS_PREFIX + user, list)) {
            String listField = field.substring(0, field.length() - "from".length()) + "unsubscribeList";
            return Optional.of(new FieldError(listField, "is not a list user " + user + " owns (see "
                    + LISTS_PREFIX + user + ")"));
        }
        return Optional.empty();
    }

    /**
     * @param user    the caller's principal name
     * @param admin   whether the caller has the role {@code mail-admin} (then every address is allowed)
     * @param mailbox an author of a raw message (its From or Sender field), as Jakarta Mail read it
     * @param field   how the field is named in errors, e.g. {@code message.From}
     * @return the refused field, or empty when the user may send as that address
     * @throws IllegalArgumentException when the author is no mailbox ({@link MailboxParser})
     */
    public Optional<FieldError> checkAuthor(String user, boolean admin, String mailbox, String field) {
        return admin ? Optional.empty() : checkFrom(user, MailboxParser.parseValid(mailbox), field);
    }

    private Optional<FieldError> checkFrom(String user, Mailbox mailbox, String field) {
        String from = mailbox.address();
        if (allows(user, from)) {
            return Optional.empty();
        }
        return Optional.of(new FieldError(field, "user " + user + " may not send as " + from + " (see " + PREFIX + user
                + ")"));
    }

    /**
     * Checked before the mail is rendered, so a sender learns nothing of a template it may not use, not even
     * whether it exists.
     *
     * @param user    the caller's principal name
     * @param admin   whether the caller has the role {@code mail-admin} (then every template is allowed)
     * @param request a mail, rendered or not
     * @param field   how its template is named in errors: {@code template}, or {@code [3].template} in a batch
     * @return the refused field ({@code template.name}), or empty when the mail names no template, or one the
     *         user's template allow-list names, or the user has no such list
     */
    public Optional<FieldError> checkTemplate(String user, boolean admin, MailRequest request, String field) {
        if (admin || request == null || request.getTemplate() == null || request.getTemplate().getName() == null) {
            return Optional.empty();
        }
        String name = request.getTemplate().getName();
        if (entries(TEMPLATES_PREFIX + user).isEmpty() || listed(TEMPLATES_PREFIX + user, name)) {
            return Optional.empty();
        }
        return Optional.of(new FieldError(field + ".name", "is not a template user " + user + " may use (see "
                + TEMPLATES_PREFIX + user + ")"));
    }

    /**
     * @param user    the caller's principal name
     * @param account an account name
     * @return whether the user's account allow-list names it, or is {@code *}
     */
    boolean allowsAccount(String user, String account) {
        return listed(ACCOUNTS_PREFIX + user, account);
    }

    /** @return whether the property's comma-separated entries name the value exactly, or are {@code *} */
    private boolean listed(String property, String value) {
        for (String entry : entries(property)) {
            if (entry.equals("*") || entry.equals(value)) {
                return true;
            }
        }
        return false;
    }

    /**
     * @param user   the caller's principal name
     * @param admin  whether the caller has the role {@code mail-admin} (then every domain is allowed)
     * @param domain a domain, compared without regard to case
     * @return whether the user may send as some address at that domain: an entry of its allow-list is {@code *},
     *         or names the domain or an address at it
     */
    public boolean mayUseDomain(String user, boolean admin, String domain) {
        if (admin) {
            return true;
        }
        for (String entry : entries(PREFIX + user)) {
            int at = entry.lastIndexOf('@');
            if (entry.equals("*") || at >= 0 && entry.substring(at + 1).equalsIgnoreCase(domain)) {
                return true;
            }
        }
        return false;
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
        for (String entry : entries(PREFIX + user)) {
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

    private List<String> entries(String property) {
        return settings.list(property);
    }
}
