package dev.mailqueue.queue.control;

import dev.mailqueue.api.EventType;
import dev.mailqueue.mail.entity.AttemptOutcome;
import dev.mailqueue.mail.entity.Texts;
import dev.mailqueue.schema.control.DatabaseKind;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.logging.Logger;

import static dev.mailqueue.queue.control.Sql.*;

/**
 * Writes what claimers report: send-started marks, attempts with their outcome (the mail's next status
 * as {@link Transition} decides, the attempt log, per-recipient results), hand-backs and releases. Every
 * statement is conditional on the claimer's lease ({@code STATUS = 'SENDING' AND LEASE_OWNER = ?}), so a
 * claimer that lost its lease cannot undo its successor's work. Each recorded outcome writes its delivery
 * events ({@link AttemptEvents}) in the same transaction; an outcome whose lease was lost writes none.
 */
@ApplicationScoped
public class OutcomeStore {

    private static final Logger LOG = Logger.getLogger(OutcomeStore.class.getName());

    /** Noted on an attempt whose claimer had lost the lease when the outcome came to be recorded. */
    static final String LEASE_LOST = "lease lost before the outcome was recorded; row left to its new owner";

    /** A claimer's leased row it never began to send goes back as it was; {@code ?}s: id, owner. By primary key. */
    static final String RELEASE = "UPDATE MAIL_MESSAGE SET STATUS = 'QUEUED', LEASE_OWNER = NULL, LEASE_EXPIRES_AT = NULL"
            + " WHERE ID = ? AND STATUS = 'SENDING' AND LEASE_OWNER = ? AND SEND_STARTED_AT IS NULL";

    /** {@code ?}s: at, id, owner. */
    static final String MARK_STARTED = "UPDATE MAIL_MESSAGE SET SEND_STARTED_AT = ?"
            + " WHERE ID = ? AND STATUS = 'SENDING' AND LEASE_OWNER = ?";

    /** {@code ?}s: status, remaining, not-before, last-attempt-at, sent-at, error, id, owner. */
    static final String RECORD = "UPDATE MAIL_MESSAGE SET STATUS = ?, ATTEMPTS_REMAINING = ?, NOT_BEFORE = ?,"
            + " LAST_ATTEMPT_AT = ?, SENT_AT = ?, LAST_ERROR = ?, LEASE_OWNER = NULL, LEASE_EXPIRES_AT = NULL,"
            + " SEND_STARTED_AT = NULL WHERE ID = ? AND STATUS = 'SENDING' AND LEASE_OWNER = ?";

    /** A mail past its expires-at, not attempted; {@code ?}s: error, id, owner. */
    static final String RECORD_EXPIRED = "UPDATE MAIL_MESSAGE SET STATUS = 'EXPIRED', LAST_ERROR = ?,"
            + " LEASE_OWNER = NULL, LEASE_EXPIRES_AT = NULL, SEND_STARTED_AT = NULL"
            + " WHERE ID = ? AND STATUS = 'SENDING' AND LEASE_OWNER = ?";

    /** {@code ?}s: mail id, lower-case address. */
    static final String DELETE_RECIPIENT = "DELETE FROM MAIL_RECIPIENT WHERE MAIL_ID = ? AND LOWER(ADDRESS) = ?";

    static final String INSERT_RECIPIENT = "INSERT INTO MAIL_RECIPIENT (MAIL_ID, ADDRESS, STATUS, REPLY_CODE,"
            + " ENHANCED_STATUS, REPLY_TEXT, UPDATED_AT) VALUES (?, ?, ?, ?, ?, ?, ?)";

    /** {@code ?}s: not-before, note, id, owner. */
    static final String HAND_BACK = "UPDATE MAIL_MESSAGE SET STATUS = 'QUEUED', NOT_BEFORE = ?,"
            + " LAST_ERROR = COALESCE(?, LAST_ERROR), LEASE_OWNER = NULL, LEASE_EXPIRES_AT = NULL,"
            + " SEND_STARTED_AT = NULL WHERE ID = ? AND STATUS = 'SENDING' AND LEASE_OWNER = ?";

    @Inject
    QueueTables tables;

    /**
     * @param tables the queue's tables, e.g. on a data source of a test
     * @return a store on them, for use outside a container
     */
    public static OutcomeStore on(QueueTables tables) {
        OutcomeStore store = new OutcomeStore();
        store.tables = tables;
        return store;
    }

    /**
     * Writes a group of claimers' changes in the caller's transaction, in JDBC batches by kind: lease
     * renewals, marks, attempts (row, attempt log, recipients), hand-backs, releases. Per-recipient rows are de-duplicated
     * by lower-case address first, so one mail's repeated recipient cannot fail the group.
     *
     * @param changes the changes, in the order they were made
     * @param retry   the backoff, for transient failures
     * @param inDoubt the in-doubt policy
     * @param verify  true when an earlier write of the same changes may have committed unseen (its
     *                commit failed with the connection): an attempt whose row is no longer leased is
     *                then looked up in the attempt log and not logged twice
     * @throws StoreException when the database refuses; nothing of the group is written then (the
     *                        caller's transaction rolls back)
     */
    public void apply(List<Change> changes, RetryPolicy retry, InDoubtPolicy inDoubt, boolean verify) {
        List<Change.Renewed> renewals = new ArrayList<>();
        List<Change.SendStarted> marks = new ArrayList<>();
        List<AttemptResult> attempts = new ArrayList<>();
        List<Change.HandedBack> handBacks = new ArrayList<>();
        List<Change.Released> releases = new ArrayList<>();
        for (Change change : changes) {
            if (change instanceof Change.Renewed r) {
                renewals.add(r);
            } else if (change instanceof Change.SendStarted m) {
                marks.add(m);
            } else if (change instanceof Change.Attempted a) {
                attempts.add(a.result());
            } else if (change instanceof Change.HandedBack h) {
                handBacks.add(h);
            } else if (change instanceof Change.Released r && !r.ids().isEmpty()) {
                releases.add(r); // no statement for an empty one: see Batch
            }
        }
        try (Connection c = tables.connect()) {
            Dialect d = tables.dialect(c);
            if (!renewals.isEmpty()) {
                try (Batch batch = new Batch(c, d.kind(), ClaimStore.RENEW)) {
                    PreparedStatement s = batch.statement();
                    for (Change.Renewed r : renewals) {
                        for (Long id : r.ids()) {
                            SqlTime.set(s, 1, r.until());
                            s.setLong(2, id);
                            s.setString(3, r.owner());
                            batch.add();
                        }
                    }
                    batch.execute();
                }
            }
            if (!marks.isEmpty()) {
                try (Batch batch = new Batch(c, d.kind(), MARK_STARTED)) {
                    PreparedStatement s = batch.statement();
                    for (Change.SendStarted m : marks) {
                        SqlTime.set(s, 1, m.at());
                        s.setLong(2, m.mailId());
                        s.setString(3, m.owner());
                        batch.add();
                    }
                    batch.execute();
                }
            }
            if (!attempts.isEmpty()) {
                recordAttempts(c, d, attempts, retry, inDoubt, verify);
            }
            if (!handBacks.isEmpty()) {
                try (Batch batch = new Batch(c, d.kind(), HAND_BACK)) {
                    PreparedStatement s = batch.statement();
                    for (Change.HandedBack h : handBacks) {
                        SqlTime.set(s, 1, h.dueAt());
                        setText(s, 2, Texts.clip(h.note(), 2000));
                        s.setLong(3, h.mailId());
                        s.setString(4, h.owner());
                        batch.add();
                    }
                    batch.execute();
                }
            }
            if (!releases.isEmpty()) {
                try (Batch batch = new Batch(c, d.kind(), RELEASE)) {
                    PreparedStatement s = batch.statement();
                    for (Change.Released r : releases) {
                        for (Long id : r.ids()) {
                            s.setLong(1, id);
                            s.setString(2, r.owner());
                            batch.add();
                        }
                    }
                    batch.execute();
                }
            }
        } catch (SQLException e) {
            throw new StoreException("could not record " + changes.size() + " dispatch changes", e);
        }
    }

    private void recordAttempts(Connection c, Dialect d, List<AttemptResult> attempts, RetryPolicy retry,
                                InDoubtPolicy inDoubt, boolean verify) throws SQLException {
        List<AttemptResult> tried = new ArrayList<>();
        List<AttemptResult> expired = new ArrayList<>();
        for (AttemptResult a : attempts) {
            (a.verdict() == Verdict.EXPIRED ? expired : tried).add(a);
        }
        Map<AttemptResult, Boolean> leased = new LinkedHashMap<>();
        Map<AttemptResult, Transition> transitions = new HashMap<>();
        List<EventLog.Row> events = new ArrayList<>();
        if (!tried.isEmpty()) {
            try (Batch batch = new Batch(c, d.kind(), RECORD)) {
                PreparedStatement s = batch.statement();
                for (AttemptResult a : tried) {
                    Transition t = Transition.after(a, retry, inDoubt);
                    transitions.put(a, t);
                    s.setString(1, t.status().name());
                    s.setInt(2, t.attemptsRemaining());
                    SqlTime.set(s, 3, t.notBefore());
                    SqlTime.set(s, 4, a.startedAt());
                    SqlTime.set(s, 5, a.sent() ? a.finishedAt() : null);
                    setText(s, 6, Texts.clip(t.error(), 2000));
                    s.setLong(7, a.mailId());
                    s.setString(8, a.owner());
                    batch.add();
                }
                int[] counts = batch.execute();
                for (int i = 0; i < tried.size(); i++) {
                    leased.put(tried.get(i), applied(counts[i]));
                }
            }
        }
        if (!expired.isEmpty()) {
            try (Batch batch = new Batch(c, d.kind(), RECORD_EXPIRED)) {
                PreparedStatement s = batch.statement();
                for (AttemptResult a : expired) {
                    setText(s, 1, Texts.clip(a.error(), 2000));
                    s.setLong(2, a.mailId());
                    s.setString(3, a.owner());
                    batch.add();
                }
                int[] counts = batch.execute(); // not an attempt: nothing is logged, whatever the count
                for (int i = 0; i < expired.size(); i++) {
                    if (applied(counts[i])) {
                        AttemptResult a = expired.get(i);
                        events.add(EventLog.Row.of(a.mailId(), EventType.EXPIRED, a.finishedAt(), null, a.error()));
                    }
                }
            }
        }
        List<AttemptLog.Row> rows = new ArrayList<>();
        List<AttemptResult> withRecipients = new ArrayList<>();
        for (Map.Entry<AttemptResult, Boolean> e : leased.entrySet()) {
            AttemptResult a = e.getKey();
            String error = a.error();
            if (!e.getValue()) {
                if (verify && attemptLogged(c, a)) {
                    continue; // the earlier write committed after all
                }
                LOG.warning(() -> "Mail " + a.mailId() + ": " + LEASE_LOST + " (claimer " + a.owner() + ")");
                error = error == null ? LEASE_LOST : error + "; " + LEASE_LOST;
            } else {
                if (!a.recipients().isEmpty()) {
                    withRecipients.add(a);
                }
                AttemptEvents.of(a, transitions.get(a), events);
            }
            rows.add(new AttemptLog.Row(a.mailId(), a.startedAt(), a.finishedAt(), a.server(), a.owner(),
                    outcomeOf(a.verdict()), a.replyCode(), a.replyText(), error, a.enhancedStatus(), a.account()));
        }
        AttemptLog.insert(c, d, rows);
        recordRecipients(c, d.kind(), withRecipients);
        EventLog.insert(c, d, events);
    }

    private static AttemptOutcome outcomeOf(Verdict verdict) {
        return switch (verdict) {
            case SENT -> AttemptOutcome.SENT;
            case IN_DOUBT -> AttemptOutcome.IN_DOUBT;
            default -> AttemptOutcome.FAILED;
        };
    }

    private static boolean attemptLogged(Connection c, AttemptResult a) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT 1 FROM MAIL_ATTEMPT WHERE MAIL_ID = ? AND LEASE_OWNER = ?"
                + " AND STARTED_AT = ?")) {
            s.setLong(1, a.mailId());
            s.setString(2, a.owner());
            SqlTime.set(s, 3, a.startedAt());
            try (ResultSet r = s.executeQuery()) {
                return r.next();
            }
        }
    }

    /** Replaces the recipient rows an attempt reports: one row per lower-case address. */
    private static void recordRecipients(Connection c, DatabaseKind kind, List<AttemptResult> attempts) throws SQLException {
        if (attempts.isEmpty()) {
            return;
        }
        Map<Long, Map<String, RecipientResult>> byMail = new LinkedHashMap<>();
        Map<Long, Instant> at = new HashMap<>();
        for (AttemptResult a : attempts) {
            Map<String, RecipientResult> unique = byMail.computeIfAbsent(a.mailId(), id -> new LinkedHashMap<>());
            for (RecipientResult r : a.recipients()) {
                unique.putIfAbsent(r.address().toLowerCase(Locale.ROOT), r);
            }
            at.put(a.mailId(), a.finishedAt());
        }
        try (PreparedStatement delete = c.prepareStatement(DELETE_RECIPIENT)) {
            for (Map.Entry<Long, Map<String, RecipientResult>> mail : byMail.entrySet()) {
                for (String key : mail.getValue().keySet()) {
                    delete.setLong(1, mail.getKey());
                    delete.setString(2, key);
                    delete.addBatch();
                }
            }
            delete.executeBatch();
        }
        try (Batch insertBatch = new Batch(c, kind, INSERT_RECIPIENT)) {
            PreparedStatement insert = insertBatch.statement();
            for (Map.Entry<Long, Map<String, RecipientResult>> mail : byMail.entrySet()) {
                for (RecipientResult r : mail.getValue().values()) {
                    insert.setLong(1, mail.getKey());
                    insert.setString(2, Texts.clip(r.address(), 254));
                    insert.setString(3, r.status().name());
                    if (r.replyCode() == null) {
                        insert.setNull(4, Types.INTEGER);
                    } else {
                        insert.setInt(4, r.replyCode());
                    }
                    setText(insert, 5, r.enhancedStatus());
                    setText(insert, 6, Texts.clip(r.replyText(), 1000));
                    SqlTime.set(insert, 7, at.get(mail.getKey()));
                    insertBatch.add();
                }
            }
            insertBatch.execute();
        }
    }
}
