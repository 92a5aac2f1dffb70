package dev.mailqueue.queue.control;

import dev.mailqueue.api.EventType;
import dev.mailqueue.bounce.control.BounceReport;
import dev.mailqueue.mail.entity.AddressLists;
import dev.mailqueue.mail.entity.AttemptOutcome;
import dev.mailqueue.mail.entity.RecipientStatus;
import dev.mailqueue.mail.entity.Texts;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import static dev.mailqueue.queue.control.Sql.setText;

/**
 * Records what a report from the bounce mailbox says, in the caller's transaction: one BOUNCE_REPORT
 * row (its key makes a second recording of the same report a no-op), and for the mail it names (by its
 * verified VERP token, else by the returned Message-ID; a token naming a mail deleted since falls back too), per
 * recipient of that mail: an attempt-log row (BOUNCED, DELAYED or COMPLAINED, with the reported status
 * and the remote server's reply), the recipient's outcome (BOUNCED for a failure, COMPLAINED), and for a
 * hard bounce (a 5.x.x status) or a complaint an entry on the suppression list. A report that names no
 * mail of the queue, or an address that is not a recipient of the mail it names, changes no mail and
 * suppresses nothing: a forged or misdirected report cannot silence an address.
 */
@ApplicationScoped
public class BounceStore {

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
     * As {@link #record(BounceReport, String, Instant, SoftBounceRule)} with soft bounces that never suppress.
     */
    public Recorded record(BounceReport report, String server, Instant now) {
        return record(report, server, now, SoftBounceRule.NEVER);
    }

    /**
     * @param report a classified report
     * @param server this server's instance name, for the attempt log
     * @param now    when it is recorded
     * @param soft   when soft bounces (failed with 4.x.x) suppress the address
     * @return whether it was new
     * @throws StoreException when the database fails, or another server recorded the same report at the
     *                        same moment (its key's primary key): the caller's transaction should roll back
     */
    public Recorded record(BounceReport report, String server, Instant now, SoftBounceRule soft) {
        try (Connection c = tables.connect()) {
            if (isRecorded(c, report.key())) {
                return Recorded.ALREADY_RECORDED;
            }
            Long mailId = null;
            int acted = 0;
            if (!report.recipients().isEmpty()) {
                Mail mail = report.verpMailId() == null ? null : mail(c, "ID", report.verpMailId());
                if (mail == null && report.originalMessageId() != null) {
                    mail = mail(c, "MESSAGE_ID", report.originalMessageId());
                }
                if (mail != null) {
                    mailId = mail.id;
                    acted = act(c, mail, report, server, now, soft);
                }
            }
            try (PreparedStatement s = c.prepareStatement("INSERT INTO BOUNCE_REPORT (REPORT_KEY, RECEIVED_AT, KIND,"
                    + " MAIL_ID, RECIPIENTS) VALUES (?, ?, ?, ?, ?)")) {
                s.setString(1, report.key());
                SqlTime.set(s, 2, now);
                s.setString(3, report.kind().name());
                if (mailId == null) {
                    s.setNull(4, Types.BIGINT);
                } else {
                    s.setLong(4, mailId);
                }
                s.setInt(5, acted);
                s.executeUpdate();
            }
            return Recorded.RECORDED;
        } catch (SQLException e) {
            throw new StoreException("could not record report " + report.key(), e);
        }
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
    private int act(Connection c, Mail mail, BounceReport report, String server, Instant now, SoftBounceRule soft)
            throws SQLException {
        Dialect d = tables.dialect(c);
        List<AttemptLog.Row> attempts = new ArrayList<>();
        List<EventLog.Row> events = new ArrayList<>();
        int acted = 0;
        for (BounceReport.Recipient r : report.recipients()) {
            String address = mail.recipient(r.address(), r.finalRecipient());
            AttemptOutcome outcome = switch (r.action()) {
                case FAILED -> AttemptOutcome.BOUNCED;
                case DELAYED -> AttemptOutcome.DELAYED;
                case COMPLAINED -> AttemptOutcome.COMPLAINED;
                default -> null; // delivered, relayed, expanded: nothing to record
            };
            if (outcome == null) {
                continue;
            }
            if (address == null) {
                attempts.add(new AttemptLog.Row(mail.id, now, now, server, INTAKE, outcome, r.replyCode(),
                        r.diagnostic(), "report " + report.key() + " names " + r.address()
                        + ", not a recipient of this mail: ignored", r.status(), null));
                continue;
            }
            attempts.add(new AttemptLog.Row(mail.id, now, now, server, INTAKE, outcome, r.replyCode(), r.diagnostic(),
                    error(outcome, address, r), r.status(), null));
            EventType type = switch (outcome) {
                case BOUNCED -> EventType.BOUNCED;
                case DELAYED -> EventType.DELAYED;
                default -> EventType.COMPLAINED;
            };
            String enhanced = r.status() != null && r.status().length() <= 16 ? r.status() : null;
            events.add(new EventLog.Row(mail.id, type, now, address, r.replyCode(), enhanced,
                    r.diagnostic() == null ? error(outcome, address, r) : r.diagnostic(), null));
            if (outcome == AttemptOutcome.DELAYED) {
                continue;
            }
            RecipientStatus status = outcome == AttemptOutcome.BOUNCED ? RecipientStatus.BOUNCED : RecipientStatus.COMPLAINED;
            setRecipient(c, mail.id, address, status, r, now);
            acted++;
            if (outcome == AttemptOutcome.COMPLAINED) {
                suppressions.add(c, address, SuppressionStore.ALL, SuppressionStore.Reason.COMPLAINT, mail.id,
                        r.diagnostic(), now);
            } else if (r.isPermanent()) {
                suppressions.add(c, address, SuppressionStore.ALL, SuppressionStore.Reason.HARD_BOUNCE, mail.id,
                        r.status() + (r.diagnostic() == null ? "" : " " + r.diagnostic()), now);
            } else if (soft.limit() > 0) {
                long bounces = softBounces(c, address, now.minus(soft.window()));
                if (bounces >= soft.limit()) {
                    suppressions.add(c, address, SuppressionStore.ALL, SuppressionStore.Reason.SOFT_BOUNCE, mail.id,
                            bounces + " soft bounces within " + soft.window().toDays() + " days, the last " + r.status()
                                    + (r.diagnostic() == null ? "" : " " + r.diagnostic()), now);
                }
            }
        }
        AttemptLog.insert(c, d, attempts);
        EventLog.insert(c, d, events);
        return acted;
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

    private static void setRecipient(Connection c, long mailId, String address, RecipientStatus status,
                                     BounceReport.Recipient r, Instant now) throws SQLException {
        Integer code = r.replyCode();
        try (PreparedStatement s = c.prepareStatement("UPDATE MAIL_RECIPIENT SET STATUS = ?, REPLY_CODE = ?,"
                + " ENHANCED_STATUS = ?, REPLY_TEXT = ?, UPDATED_AT = ? WHERE MAIL_ID = ? AND ADDRESS = ?")) {
            bindRecipient(s, status, code, r, now);
            s.setLong(6, mailId);
            s.setString(7, address);
            if (s.executeUpdate() > 0) {
                return;
            }
        }
        try (PreparedStatement s = c.prepareStatement("INSERT INTO MAIL_RECIPIENT (STATUS, REPLY_CODE,"
                + " ENHANCED_STATUS, REPLY_TEXT, UPDATED_AT, MAIL_ID, ADDRESS) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
            bindRecipient(s, status, code, r, now);
            s.setLong(6, mailId);
            s.setString(7, address);
            s.executeUpdate();
        }
    }

    private static void bindRecipient(PreparedStatement s, RecipientStatus status, Integer code,
                                      BounceReport.Recipient r, Instant now) throws SQLException {
        s.setString(1, status.name());
        if (code == null) {
            s.setNull(2, Types.INTEGER);
        } else {
            s.setInt(2, code);
        }
        String enhanced = r.status();
        setText(s, 3, enhanced != null && enhanced.length() <= 11 ? enhanced : null);
        setText(s, 4, Texts.clip(r.diagnostic(), 1000));
        SqlTime.set(s, 5, now);
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
