package dev.mailqueue.queue.control;

import dev.mailqueue.settings.control.InDoubtPolicy;
import dev.mailqueue.settings.control.RetryPolicy;
import dev.mailqueue.api.EventType;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.queue.entity.AttemptOutcome;
import dev.mailqueue.schema.control.DatabaseKind;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.logging.Logger;

import static dev.mailqueue.queue.control.Sql.setText;

/**
 * Writes what claimers report: lease renewals, outcomes (the mail's next state as {@link Transition} decides, and one
 * row of its log, which is also its delivery event), hand-backs and releases. Every change of a mail is conditional
 * on its claimer ({@code MAIL_QUEUE.CLAIMER = ?}), so a claimer that lost its lease cannot undo its successor's
 * work. A finished mail leaves the queue (a delete of its narrow row); a mail tried again gets its new due time and
 * attempts there; the mail's content is never written. Per group, on PostgreSQL: one DELETE for every finished mail
 * (arrays), one multi-row INSERT for the log, whatever the group's size.
 */
@ApplicationScoped
public class OutcomeStore {

    private static final Logger LOG = Logger.getLogger(OutcomeStore.class.getName());

    /** Noted on an attempt whose claimer had lost the lease when the outcome came to be recorded. */
    static final String LEASE_LOST = "lease lost before the outcome was recorded; the mail was left to its new holder";

    /** A finished mail leaves the queue; {@code ?}s: mail id, claimer. */
    static final String FINISH = "DELETE FROM MAIL_QUEUE WHERE MAIL_ID = ? AND CLAIMER = ?";

    /** PostgreSQL: every finished mail of a group in one statement; {@code ?}s: mail ids, claimers (arrays). */
    static final String FINISH_ALL = "DELETE FROM MAIL_QUEUE q USING (SELECT unnest(?::bigint[]) AS mail_id,"
            + " unnest(?::bigint[]) AS claimer) d WHERE q.mail_id = d.mail_id AND q.claimer = d.claimer RETURNING q.mail_id";

    /** A mail tried again later; {@code ?}s: due at, attempts left, settled, mail id, claimer. */
    static final String RETRY = "UPDATE MAIL_QUEUE SET DUE_AT = ?, ATTEMPTS_LEFT = ?, CLAIMER = NULL, CLAIM_NO = NULL,"
            + " NOTE = NULL, SETTLED = CASE WHEN ? = 1 THEN 1 ELSE SETTLED END WHERE MAIL_ID = ? AND CLAIMER = ?";

    /** {@code ?}s: due at, note, mail id, claimer. */
    static final String HAND_BACK = "UPDATE MAIL_QUEUE SET DUE_AT = ?, NOTE = COALESCE(?, NOTE), CLAIMER = NULL,"
            + " CLAIM_NO = NULL WHERE MAIL_ID = ? AND CLAIMER = ?";

    /** A held mail never begun goes back as it was; {@code ?}s: mail id, claimer. */
    static final String RELEASE = "UPDATE MAIL_QUEUE SET CLAIMER = NULL, CLAIM_NO = NULL WHERE MAIL_ID = ? AND CLAIMER = ?";

    /** An ended claimer's lease goes, unless it still holds a mail; {@code ?}s: claimer, claimer. */
    static final String END = "DELETE FROM MAIL_CLAIMER WHERE ID = ? AND NOT EXISTS (SELECT 1 FROM MAIL_QUEUE WHERE CLAIMER = ?)";

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
     * Writes a group of claimers' changes in the caller's transaction: outcomes (queue rows, then
     * the log last), hand-backs, releases.
     *
     * @param changes the changes, in the order they were made
     * @param retry   the backoff, for transient failures
     * @param inDoubt the in-doubt policy
     * @param verify  true when an earlier write of the same changes may have committed unseen (its commit failed
     *                with the connection): an outcome whose mail is no longer held is then looked up in the log and
     *                not logged twice
     * @throws StoreException when the database refuses; nothing of the group is written then (the caller's
     *                        transaction rolls back)
     */
    public void apply(List<Change> changes, RetryPolicy retry, InDoubtPolicy inDoubt, boolean verify) {
        List<AttemptResult> attempts = new ArrayList<>();
        List<Change.HandedBack> handBacks = new ArrayList<>();
        List<Change.Released> releases = new ArrayList<>();
        for (Change change : changes) {
            if (change instanceof Change.Attempted a) {
                attempts.add(a.result());
            } else if (change instanceof Change.HandedBack h) {
                handBacks.add(h);
            } else if (change instanceof Change.Released r) {
                releases.add(r);
            }
        }
        try (Connection c = tables.connect()) {
            DatabaseKind d = tables.kind(c);
            List<AttemptLog.Row> log = attempts.isEmpty() ? List.of() : recordAttempts(c, d, attempts, retry, inDoubt, verify);
            if (!handBacks.isEmpty()) {
                try (Batch batch = new Batch(c, d, HAND_BACK)) {
                    PreparedStatement s = batch.statement();
                    for (Change.HandedBack h : handBacks) {
                        SqlTime.set(s, 1, h.dueAt());
                        setText(s, 2, Sql.clip(h.note(), 2000));
                        s.setLong(3, h.mailId());
                        s.setLong(4, h.claimer());
                        batch.add();
                    }
                    batch.execute();
                }
            }
            if (releases.stream().anyMatch(r -> !r.ids().isEmpty())) {
                try (Batch batch = new Batch(c, d, RELEASE)) {
                    for (Change.Released r : releases) {
                        for (Long id : r.ids()) {
                            batch.statement().setLong(1, id);
                            batch.statement().setLong(2, r.claimer());
                            batch.add();
                        }
                    }
                    batch.execute();
                }
            }
            if (releases.stream().anyMatch(Change.Released::ended)) {
                try (Batch batch = new Batch(c, d, END)) {
                    for (Change.Released r : releases) {
                        if (r.ended()) {
                            batch.statement().setLong(1, r.claimer());
                            batch.statement().setLong(2, r.claimer());
                            batch.add();
                        }
                    }
                    batch.execute();
                }
            }
            AttemptLog.insert(c, d, log);
        } catch (SQLException e) {
            throw new StoreException("could not record " + changes.size() + " dispatch changes", e);
        }
    }

    /** @return the log rows of the outcomes, once their mails' queue rows are written */
    private List<AttemptLog.Row> recordAttempts(Connection c, DatabaseKind d, List<AttemptResult> attempts, RetryPolicy retry,
                                                InDoubtPolicy inDoubt, boolean verify) throws SQLException {
        // by identity: a record's hash would read every field, reply text and recipients included
        Map<AttemptResult, Transition> next = new IdentityHashMap<>();
        List<AttemptResult> finished = new ArrayList<>();
        List<AttemptResult> again = new ArrayList<>();
        for (AttemptResult a : attempts) {
            Transition t = Transition.after(a, retry, inDoubt);
            next.put(a, t);
            (t.status() == MailStatus.QUEUED ? again : finished).add(a);
        }
        Set<AttemptResult> held = Collections.newSetFromMap(new IdentityHashMap<>());
        if (!finished.isEmpty()) {
            held.addAll(finish(c, d, finished));
        }
        if (!again.isEmpty()) {
            try (Batch batch = new Batch(c, d, RETRY)) {
                PreparedStatement s = batch.statement();
                for (AttemptResult a : again) {
                    Transition t = next.get(a);
                    SqlTime.set(s, 1, t.notBefore());
                    s.setInt(2, t.attemptsRemaining());
                    s.setInt(3, a.recipients().isEmpty() ? 0 : 1);
                    s.setLong(4, a.mailId());
                    s.setLong(5, a.lease().claimer());
                    batch.add();
                }
                int[] counts = batch.execute();
                for (int i = 0; i < again.size(); i++) {
                    if (Sql.applied(counts[i])) {
                        held.add(again.get(i));
                    }
                }
            }
        }
        List<AttemptLog.Row> rows = new ArrayList<>(attempts.size());
        for (AttemptResult a : attempts) {
            Transition t = next.get(a);
            if (held.contains(a)) {
                EventType event = AttemptEvents.of(a.verdict(), !a.recipients().isEmpty(), t.status());
                rows.add(new AttemptLog.Row(a.mailId(), a.startedAt(), a.finishedAt(), a.server(), a.owner(),
                        outcomeOf(a.verdict()), a.replyCode(), a.replyText(), t.error(), a.enhancedStatus(), a.account(),
                        t.status(), event, null, t.status() == MailStatus.QUEUED ? t.notBefore() : null, a.recipients()));
                continue;
            }
            if (verify && logged(c, a)) {
                continue; // the earlier write committed after all
            }
            LOG.warning(() -> "Mail " + a.mailId() + ": " + LEASE_LOST + " (claimer " + a.owner() + ")");
            rows.add(new AttemptLog.Row(a.mailId(), a.startedAt(), a.finishedAt(), a.server(), a.owner(),
                    outcomeOf(a.verdict()), a.replyCode(), a.replyText(), a.error() == null ? LEASE_LOST
                    : a.error() + "; " + LEASE_LOST, a.enhancedStatus(), a.account(), null, null, null, null, List.of()));
        }
        return rows;
    }

    /** @return the finished mails whose queue row their claimer still held, now deleted */
    private static Set<AttemptResult> finish(Connection c, DatabaseKind d, List<AttemptResult> finished) throws SQLException {
        Set<AttemptResult> held = Collections.newSetFromMap(new IdentityHashMap<>());
        if (d == DatabaseKind.POSTGRESQL) {
            Long[] mails = new Long[finished.size()];
            Long[] claimers = new Long[finished.size()];
            for (int i = 0; i < finished.size(); i++) {
                mails[i] = finished.get(i).mailId();
                claimers[i] = finished.get(i).lease().claimer();
            }
            Set<Long> deleted = new HashSet<>();
            Array mailArray = c.createArrayOf("bigint", mails);
            Array claimerArray = c.createArrayOf("bigint", claimers);
            try (PreparedStatement s = c.prepareStatement(FINISH_ALL)) {
                s.setArray(1, mailArray);
                s.setArray(2, claimerArray);
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        deleted.add(r.getLong(1));
                    }
                }
            } finally {
                mailArray.free();
                claimerArray.free();
            }
            for (AttemptResult a : finished) {
                if (deleted.contains(a.mailId())) {
                    held.add(a);
                }
            }
            return held;
        }
        try (Batch batch = new Batch(c, d, FINISH)) {
            for (AttemptResult a : finished) {
                batch.statement().setLong(1, a.mailId());
                batch.statement().setLong(2, a.lease().claimer());
                batch.add();
            }
            int[] counts = batch.execute();
            for (int i = 0; i < finished.size(); i++) {
                if (Sql.applied(counts[i])) {
                    held.add(finished.get(i));
                }
            }
        }
        return held;
    }

    private static AttemptOutcome outcomeOf(Verdict verdict) {
        return switch (verdict) {
            case SENT -> AttemptOutcome.SENT;
            case IN_DOUBT -> AttemptOutcome.IN_DOUBT;
            case EXPIRED -> AttemptOutcome.EXPIRED;
            default -> AttemptOutcome.FAILED;
        };
    }

    private static boolean logged(Connection c, AttemptResult a) throws SQLException {
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
}
