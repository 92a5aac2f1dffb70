package dev.mailqueue.queue.control;

import dev.mailqueue.schema.control.DatabaseKind;
import dev.mailqueue.settings.control.SoftBounceRule;
import dev.mailqueue.api.EventType;
import dev.mailqueue.log.control.LogText;
import dev.mailqueue.queue.entity.AddressLists;
import dev.mailqueue.queue.entity.AttemptOutcome;
import dev.mailqueue.queue.entity.RecipientStatus;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.logging.Logger;

import static dev.mailqueue.queue.control.Sql.setText;

/**
 * Records what a report from the bounce mailbox says, in the caller's transaction: one BOUNCE_REPORT row (its
 * key makes a second recording of the same report a no-op), and for the mail and recipient it names: an
 * attempt-log row (BOUNCED, DELAYED or COMPLAINED, with the reported status and the remote server's reply), the
 * recipient's outcome (BOUNCED for a failure, COMPLAINED), and for a hard bounce (a 5.x.x status) or a complaint
 * an entry on the suppression list.
 * <p>
 * Anyone who received a mail can write a report, so a report acts only on what it proves:
 * <ul>
 *   <li>A verified per-recipient VERP token names the mail and the one recipient it may act on, whatever
 *       addresses the report lists (a forwarded or rewritten report still names its recipient).</li>
 *   <li>A verified token of the first form names only the mail: it acts when the mail has one recipient.</li>
 *   <li>Without a token, the returned Message-ID names the mail, and the report acts on the listed addresses
 *       that are recipients of that mail, but only when the mail was not routed through an account with VERP:
 *       for such mail every genuine report carries a token, and one that matches only by Message-ID (which
 *       every recipient sees) is logged and recorded as naming no mail, never acted on.</li>
 * </ul>
 * A report that names no mail of the queue, or an address that is not a recipient of the mail it names, changes
 * no mail and suppresses nothing, and at most one attempt-log row per recipient of the mail is written.
 */
@ApplicationScoped
public class BounceStore {

    private static final Logger LOG = Logger.getLogger(BounceStore.class.getName());

    /** The lease owner written into the attempt-log rows of reports, where claimers write theirs. */
    public static final String INTAKE = "bounce-intake";

    @Inject
    QueueTables tables;

    @Inject
    SuppressionStore suppressions;

    /** What recording a report did. */
    public enum Recorded {
        /** The report is new; {@code acted} recipients of a mail were changed. */
        RECORDED,
        /** The report was recorded before (its key is known): nothing changed. */
        ALREADY_RECORDED
    }

    /**
     * @param tables       the queue's tables
     * @param suppressions the suppression list on the same tables
     * @return a store on them, e.g. for tests outside a container
     */
    public static BounceStore on(QueueTables tables, SuppressionStore suppressions) {
        BounceStore store = new BounceStore();
        store.tables = tables;
        store.suppressions = suppressions;
        return store;
    }

    /**
     * As {@link #record(BounceReport, String, Instant, SoftBounceRule, Predicate)} with soft bounces that never
     * suppress and no account using VERP.
     */
    public Recorded record(BounceReport report, String server, Instant now) {
        return record(report, server, now, SoftBounceRule.NEVER, account -> false);
    }

    /**
     * @param report    a classified report
     * @param server    this server's instance name, for the attempt log
     * @param now       when it is recorded
     * @param soft      when soft bounces (failed with 4.x.x) suppress the address
     * @param usesVerp  whether an account (by name; null for the default account) sends with a VERP envelope
     *                  sender: a report about its mail must carry a token to act
     * @return whether it was new
     * @throws StoreException when the database fails, or another server recorded the same report at the
     *                        same moment (its key's primary key): the caller's transaction should roll back
     */
    public Recorded record(BounceReport report, String server, Instant now, SoftBounceRule soft,
                           Predicate<String> usesVerp) {
        try (Connection c = tables.connect()) {
            if (isRecorded(c, report.key())) {
                return Recorded.ALREADY_RECORDED;
            }
            Long mailId = null;
            int acted = 0;
            if (!report.recipients().isEmpty()) {
                Target target = target(c, report, usesVerp);
                if (target != null) {
                    mailId = target.mail.id;
                    acted = act(c, target, report, server, now, soft);
                }
            }
            insertReport(c, report.key(), report.kind().name(), mailId, acted, now);
            return Recorded.RECORDED;
        } catch (SQLException e) {
            throw new StoreException("could not record report " + report.key(), e);
        }
    }

    /**
     * Records a report that could not be recorded as it read (its data refused for a reason that will not
     * pass): as UNRECOGNISED, naming no mail, so that the intake deletes its message and goes on.
     *
     * @param key the report's key, at most 255 characters
     * @param now when it is recorded
     * @return whether it was new
     * @throws StoreException when the database fails
     */
    public Recorded recordUnrecognised(String key, Instant now) {
        try (Connection c = tables.connect()) {
            if (isRecorded(c, key)) {
                return Recorded.ALREADY_RECORDED;
            }
            insertReport(c, key, "UNRECOGNISED", null, 0, now);
            return Recorded.RECORDED;
        } catch (SQLException e) {
            throw new StoreException("could not record report " + key, e);
        }
    }

    private static void insertReport(Connection c, String key, String kind, Long mailId, int acted, Instant now)
            throws SQLException {
        try (PreparedStatement s = c.prepareStatement("INSERT INTO BOUNCE_REPORT (REPORT_KEY, RECEIVED_AT, KIND,"
                + " MAIL_ID, RECIPIENTS) VALUES (?, ?, ?, ?, ?)")) {
            s.setString(1, key);
            SqlTime.set(s, 2, now);
            s.setString(3, kind);
            if (mailId == null) {
                s.setNull(4, Types.BIGINT);
            } else {
                s.setLong(4, mailId);
            }
            s.setInt(5, acted);
            s.executeUpdate();
        }
    }

    /**
     * The mail a report may act on, and the one recipient it is restricted to when a VERP token named it.
     *
     * @param mail      the mail
     * @param recipient the lower-case recipient a per-recipient token named; null when the report's addresses
     *                  are matched against the mail's recipients
     */
    private record Target(Mail mail, String recipient) {
    }

    /** @return what the report may act on, or null when it proves no mail (logged) */
    private Target target(Connection c, BounceReport report, Predicate<String> usesVerp) throws SQLException {
        if (report.verp() != null) {
            Mail mail = mail(c, "ID", report.verp().mailId());
            if (mail != null) {
                Optional<Integer> position = report.verp().recipient();
                if (position.isEmpty() && mail.recipients.size() == 1) {
                    return new Target(mail, mail.recipients.get(0).toLowerCase(Locale.ROOT));
                }
                if (position.isPresent() && position.get() < mail.recipients.size()) {
                    return new Target(mail, mail.recipients.get(position.get()).toLowerCase(Locale.ROOT));
                }
                LOG.warning(() -> "bounce intake: report " + LogText.escape(report.key()) + " carries a VERP token of mail "
                        + mail.id + " that names none of its " + mail.recipients.size() + " recipients: not acted on");
                return null;
            }
        }
        if (report.originalMessageId() == null) {
            return null;
        }
        Mail mail = mail(c, "MESSAGE_ID", report.originalMessageId());
        if (mail == null) {
            return null;
        }
        if (sentWithVerp(c, mail.id, usesVerp)) {
            LOG.warning(() -> "bounce intake: report " + LogText.escape(report.key()) + " names mail " + mail.id
                    + " by its Message-ID only, but that mail went out with VERP, so a genuine report would carry its"
                    + " token: not acted on (anyone who received the mail knows its Message-ID)");
            return null;
        }
        return new Target(mail, null);
    }

    /** @return true when the mail's routed account, or an account an attempt used, sends with VERP */
    private static boolean sentWithVerp(Connection c, long mailId, Predicate<String> usesVerp) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT SMTP_ACCOUNT FROM MAIL_MESSAGE WHERE ID = ?"
                + " UNION SELECT SMTP_ACCOUNT FROM MAIL_ATTEMPT WHERE MAIL_ID = ?")) {
            s.setLong(1, mailId);
            s.setLong(2, mailId);
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    if (usesVerp.test(r.getString(1))) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /**
     * @param key a report's key
     * @return true when a report with this key has been recorded
     * @throws StoreException when the database fails
     */
    public boolean isRecorded(String key) {
        try (Connection c = tables.connect()) {
            return isRecorded(c, key);
        } catch (SQLException e) {
            throw new StoreException("could not look up report " + key, e);
        }
    }

    private static boolean isRecorded(Connection c, String key) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT 1 FROM BOUNCE_REPORT WHERE REPORT_KEY = ?")) {
            s.setString(1, key);
            try (ResultSet r = s.executeQuery()) {
                return r.next();
            }
        }
    }

    /** @return recipients changed */
    private int act(Connection c, Target target, BounceReport report, String server, Instant now, SoftBounceRule soft)
            throws SQLException {
        Mail mail = target.mail;
        DatabaseKind d = tables.kind(c);
        List<AttemptLog.Row> attempts = new ArrayList<>();
        Set<String> done = new HashSet<>();
        int acted = 0;
        int ignored = 0;
        for (BounceReport.Recipient r : decisive(target, report)) {
            String address = target.recipient != null ? target.recipient : mail.recipient(r.address(), r.finalRecipient());
            AttemptOutcome outcome = switch (r.action()) {
                case FAILED -> AttemptOutcome.BOUNCED;
                case DELAYED -> AttemptOutcome.DELAYED;
                case COMPLAINED -> AttemptOutcome.COMPLAINED;
                default -> null; // delivered, relayed, expanded: nothing to record
            };
            if (outcome == null) {
                continue;
            }
            if (address == null || !done.add(address)) {
                ignored++;
                continue;
            }
            EventType type = switch (outcome) {
                case BOUNCED -> EventType.BOUNCED;
                case DELAYED -> EventType.DELAYED;
                default -> EventType.COMPLAINED;
            };
            RecipientStatus status = outcome == AttemptOutcome.BOUNCED ? RecipientStatus.BOUNCED
                    : outcome == AttemptOutcome.COMPLAINED ? RecipientStatus.COMPLAINED : null;
            attempts.add(new AttemptLog.Row(mail.id, now, now, server, INTAKE, outcome, r.replyCode(), r.diagnostic(),
                    error(outcome, address, r), r.status(), null, null, type, address, null, status == null ? List.of()
                    : List.of(new RecipientResult(address, status, r.replyCode(), r.diagnostic(), r.status()))));
            if (status == null) {
                continue;
            }
            acted++;
            if (outcome == AttemptOutcome.COMPLAINED) {
                suppressions.add(c, address, Suppressed.ALL, SuppressionStore.Reason.COMPLAINT, mail.id,
                        r.diagnostic(), now);
            } else if (r.isPermanent()) {
                suppressions.add(c, address, Suppressed.ALL, SuppressionStore.Reason.HARD_BOUNCE, mail.id,
                        Sql.clip(r.status() + (r.diagnostic() == null ? "" : " " + r.diagnostic()), 1000), now);
            } else if (soft.limit() > 0) {
                long bounces = softBounces(c, address, now.minus(soft.window())) + 1; // and this one, written below
                if (bounces >= soft.limit()) {
                    suppressions.add(c, address, Suppressed.ALL, SuppressionStore.Reason.SOFT_BOUNCE, mail.id,
                            Sql.clip(bounces + " soft bounces within " + soft.window().toDays() + " days, the last "
                                    + r.status() + (r.diagnostic() == null ? "" : " " + r.diagnostic()), 1000), now);
                }
            }
        }
        if (ignored > 0) {
            int count = ignored;
            LOG.info(() -> "bounce intake: report " + LogText.escape(report.key()) + " lists " + count
                    + " address(es) that are not recipients of mail " + mail.id + " (or repeats): ignored");
        }
        AttemptLog.insert(c, d, attempts);
        return acted;
    }

    /**
     * @return the report's recipient blocks to act on: all of them when they are matched against the mail's
     *         recipients; for a recipient a VERP token named, the one block that decides (the block about that
     *         address, else the first failure, else the first block), as the token, not the block, names whom
     *         it is about
     */
    private static List<BounceReport.Recipient> decisive(Target target, BounceReport report) {
        if (target.recipient == null) {
            return report.recipients();
        }
        BounceReport.Recipient chosen = null;
        for (BounceReport.Recipient r : report.recipients()) {
            if (target.recipient.equalsIgnoreCase(r.address()) || target.recipient.equalsIgnoreCase(r.finalRecipient())) {
                chosen = r;
                break;
            }
            if (chosen == null || chosen.action() != BounceReport.Action.FAILED && r.action() == BounceReport.Action.FAILED) {
                chosen = r;
            }
        }
        return chosen == null ? List.of() : List.of(chosen);
    }

    /** @return the address's recipient outcomes of soft bounces (BOUNCED with a 4.x.x status) since {@code since} */
    private static long softBounces(Connection c, String address, Instant since) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT COUNT(*) FROM MAIL_RECIPIENT WHERE ADDRESS = ?"
                + " AND STATUS = 'BOUNCED' AND ENHANCED_STATUS LIKE '4.%' AND UPDATED_AT >= ?")) {
            s.setString(1, address);
            SqlTime.set(s, 2, since);
            try (ResultSet r = s.executeQuery()) {
                r.next();
                return r.getLong(1);
            }
        }
    }

    private static String error(AttemptOutcome outcome, String address, BounceReport.Recipient r) {
        return switch (outcome) {
            case BOUNCED -> "bounced after the server accepted it: " + address + " " + r.status()
                    + (r.isPermanent() ? " (permanent; address suppressed)" : " (a server gave up: a soft bounce)");
            case DELAYED -> "delayed at a later server: " + address + " " + r.status();
            default -> "complaint by " + address + " (" + r.diagnostic() + "); address suppressed";
        };
    }

    /** @return the mail whose ID (a Long) or MESSAGE_ID (a String) is {@code key}, or null */
    private static Mail mail(Connection c, String keyColumn, Object key) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT ID, TO_ADDRESSES, CC_ADDRESSES, BCC_ADDRESSES"
                + " FROM MAIL_MESSAGE WHERE " + keyColumn + " = ?")) {
            if (key instanceof Long id) {
                s.setLong(1, id);
            } else {
                s.setString(1, (String) key);
            }
            try (ResultSet r = s.executeQuery()) {
                if (!r.next()) {
                    return null;
                }
                List<String> recipients = new ArrayList<>();
                for (int column = 2; column <= 4; column++) {
                    recipients.addAll(AddressLists.split(r.getString(column)));
                }
                return new Mail(r.getLong(1), recipients);
            }
        }
    }

    /** A mail a report names: its id and recipients. */
    private record Mail(long id, List<String> recipients) {

        /**
         * @return the recipient, as the recipient table keys it (lower case), that the report's original or
         *         final recipient names; null when neither is a recipient of this mail
         */
        String recipient(String original, String finalRecipient) {
            for (String candidate : new String[]{original, finalRecipient}) {
                if (candidate == null) {
                    continue;
                }
                String key = candidate.toLowerCase(Locale.ROOT);
                for (String recipient : recipients) {
                    if (recipient.toLowerCase(Locale.ROOT).equals(key)) {
                        return key;
                    }
                }
            }
            return null;
        }
    }
}
