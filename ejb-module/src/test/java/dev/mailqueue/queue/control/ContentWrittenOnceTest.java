package dev.mailqueue.queue.control;

import dev.mailqueue.settings.control.InDoubtPolicy;
import dev.mailqueue.testsupport.QueueDatabase;
import dev.mailqueue.testsupport.TestMails;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static dev.mailqueue.queue.control.OutcomeStoreTest.NOW;
import static dev.mailqueue.queue.control.OutcomeStoreTest.RETRY;
import static dev.mailqueue.testsupport.TestMails.mail;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lean store's two invariants, on the real schema of each database (issue 50, point 5): a mail's content (every
 * row of MAIL_MESSAGE, MAIL_HEADER, MAIL_ATTACHMENT, MAIL_RAW, each column, binary columns byte for byte) is written
 * once, at enqueue, and neither a claim nor any outcome rewrites it; and each attempt writes exactly one log row (a
 * hand-back none), counted, not read from the first row found. The digest is shown to see a change in each table.
 */
@Tag("database")
class ContentWrittenOnceTest {

    @RegisterExtension
    static final QueueDatabase db = QueueDatabase.perTestClass();

    /** Every byte value, so a binary column that a driver or a digest read as text would not pass unseen. */
    static final byte[] BINARY = new byte[512];

    static {
        for (int i = 0; i < BINARY.length; i++) {
            BINARY[i] = (byte) i;
        }
    }

    ClaimStore claims;
    Lease lease;
    int claimNo;

    @BeforeEach
    void lease() {
        claims = db.claimStore();
        lease = db.inTransaction(() -> claims.start("host/server#1", NOW, NOW.plusSeconds(60)));
    }

    static NewMail full(String subject) {
        return TestMails.content(TestMails.to(mail(subject, 4, NOW), List.of("zoë@to.example", "b@to.example"),
                        List.of("c@to.example"), List.of("d@to.example")), "Grüße\r\nzweite Zeile", "<p>Grüße</p>",
                List.of(new NewMail.Attachment("Rechnung März.pdf", "application/pdf", BINARY),
                        new NewMail.Attachment("a.txt", "text/plain", "attached".getBytes(StandardCharsets.UTF_8))),
                List.of(new NewMail.Header("X-Order", "4711"), new NewMail.Header("X-Note", "für Sie")));
    }

    static NewMail raw(String subject) {
        return raw(subject, 1);
    }

    /** @return a raw message whose body is {@link #BINARY} {@code copies} times (512 bytes each) */
    static NewMail raw(String subject, int copies) {
        NewMail m = mail(subject, 4, NOW);
        byte[] message = ("From: a@from.example\r\nTo: b@to.example\r\nSubject: " + subject + "\r\n\r\n").getBytes(
                StandardCharsets.US_ASCII);
        byte[] content = new byte[message.length + BINARY.length * copies];
        System.arraycopy(message, 0, content, 0, message.length);
        for (int i = 0; i < copies; i++) {
            System.arraycopy(BINARY, 0, content, message.length + i * BINARY.length, BINARY.length);
        }
        return new NewMail(m.messageId(), m.priority(), m.createdAt(), m.notBefore(), m.attempts(), m.expiresAt(),
                m.from(), m.fromName(), m.replyTo(), List.of("b@to.example"), List.of(), List.of(), m.subject(), null, null,
                m.account(), m.enqueuedBy(), List.of(), List.of(), null, null, null, null, List.of(),
                new NewMail.Raw(content, false));
    }

    /** @return the mails enqueued and claimed, by subject, in order */
    Map<String, ClaimedMail> enqueueAndClaim(NewMail... mails) {
        db.inTransaction(() -> db.enqueueStore().enqueue(TestMails.groups(mails), "host/server"));
        return claim(NOW, mails.length);
    }

    Map<String, ClaimedMail> claim(Instant at, int count) {
        Map<String, ClaimedMail> bySubject = new LinkedHashMap<>();
        for (ClaimedMail m : db.inTransaction(() -> claims.claim(lease, ++claimNo, "host/server", at, at.plusSeconds(60),
                count, InDoubtPolicy.RESEND, TestMails.ACCOUNTS, false)).mails()) {
            bySubject.put(db.text("SELECT SUBJECT FROM MAIL_MESSAGE WHERE ID = ?", m.id()), m);
        }
        assertThat(bySubject).as("claimed").hasSize(count);
        return bySubject;
    }

    Map<Long, String> digests(List<Long> ids) {
        Map<Long, String> digests = new LinkedHashMap<>();
        ids.forEach(id -> digests.put(id, db.contentDigest(id)));
        return digests;
    }

    void apply(Change... changes) {
        db.inTransaction(() -> {
            db.outcomeStore().apply(List.of(changes), RETRY, InDoubtPolicy.RESEND, false);
            return null;
        });
    }

    static Change attempted(ClaimedMail mail, Lease lease, Verdict verdict, Integer code, String error) {
        return new Change.Attempted(OutcomeStoreTest.result(mail, lease, verdict, code, error, List.of()));
    }

    /** @return the mail's log rows in order: outcome / mail status / event type */
    List<String> log(long id) {
        return db.rows("SELECT OUTCOME, MAIL_STATUS, EVENT_TYPE FROM MAIL_ATTEMPT WHERE MAIL_ID = ? ORDER BY ID", id);
    }

    @Test
    void noClaimAndNoOutcomeRewritesContentAndEachAttemptWritesOneLogRow() {
        db.inTransaction(() -> db.enqueueStore().enqueue(TestMails.groups(full("sent"), full("deferred"), full("refused"),
                full("in doubt"), full("handed back"), full("expired"), raw("raw")), "host/server"));
        List<Long> ids = db.rows("SELECT ID FROM MAIL_MESSAGE ORDER BY ID").stream().map(Long::valueOf).toList();
        Map<Long, String> enqueued = digests(ids);
        assertThat(enqueued.values()).as("the rows each mail has").allSatisfy(d -> assertThat(d)
                .matches("MAIL_MESSAGE=1 MAIL_HEADER=(2|0) MAIL_ATTACHMENT=(2|0) MAIL_RAW=(0|1) [0-9a-f]{64}"));

        Map<String, ClaimedMail> m = claim(NOW, ids.size());
        assertThat(digests(ids)).as("after the claim").isEqualTo(enqueued);

        apply(attempted(m.get("sent"), lease, Verdict.SENT, 250, null),
                attempted(m.get("deferred"), lease, Verdict.TRANSIENT, 451, "451 4.3.0 later"),
                attempted(m.get("refused"), lease, Verdict.PERMANENT, 550, "550 5.1.1 no such user"),
                attempted(m.get("in doubt"), lease, Verdict.IN_DOUBT, null, "in doubt: read timed out"),
                new Change.HandedBack(m.get("handed back").id(), lease.claimer(), NOW.plusSeconds(30), "account unreachable"),
                attempted(m.get("expired"), lease, Verdict.EXPIRED, null, "expired"),
                attempted(m.get("raw"), lease, Verdict.SENT, 250, null));
        assertThat(digests(ids)).as("after every outcome").isEqualTo(enqueued);

        assertThat(log(m.get("sent").id())).containsExactly("SENT/SENT/SENT");
        assertThat(log(m.get("raw").id())).containsExactly("SENT/SENT/SENT");
        assertThat(log(m.get("deferred").id())).containsExactly("FAILED/QUEUED/DEFERRED");
        assertThat(log(m.get("refused").id())).containsExactly("FAILED/FAILED/REFUSED");
        assertThat(log(m.get("in doubt").id())).containsExactly("IN_DOUBT/QUEUED/DEFERRED");
        assertThat(log(m.get("handed back").id())).as("a hand-back is no attempt").isEmpty();
        assertThat(log(m.get("expired").id())).containsExactly("EXPIRED/EXPIRED/EXPIRED");

        Instant later = NOW.plusSeconds(3_600);
        Lease next = db.inTransaction(() -> claims.start("host/server#2", later, later.plusSeconds(60)));
        lease = next;
        Map<String, ClaimedMail> again = claim(later, 3);
        assertThat(again).containsOnlyKeys("deferred", "in doubt", "handed back");
        apply(again.values().stream().map(c -> attempted(c, next, Verdict.SENT, 250, null)).toArray(Change[]::new));

        assertThat(digests(ids)).as("after the second round").isEqualTo(enqueued);
        assertThat(log(m.get("deferred").id())).containsExactly("FAILED/QUEUED/DEFERRED", "SENT/SENT/SENT");
        assertThat(log(m.get("in doubt").id())).containsExactly("IN_DOUBT/QUEUED/DEFERRED", "SENT/SENT/SENT");
        assertThat(log(m.get("handed back").id())).containsExactly("SENT/SENT/SENT");
        assertThat(log(m.get("sent").id())).as("untouched by the others' outcomes").containsExactly("SENT/SENT/SENT");
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_ATTEMPT")).as("one row per attempt, no more").isEqualTo(9);
    }

    /**
     * A raw message of 400 KB (every byte value, 800 times) is read for its send exactly as it was stored: the raw
     * column is a BLOB on Derby, BYTEA on PostgreSQL and LONGBLOB on MariaDB, and {@link ClaimStore#body} reads it
     * through a join (RawMimeIT sends a 165 KB one, on Derby only).
     */
    @Test
    void aLargeRawMessageIsReadForItsSendByteForByte() {
        NewMail large = raw("large raw", 800);

        ClaimedMail claimed = enqueueAndClaim(large).get("large raw");

        byte[] read = claims.body(claimed.id()).raw();
        assertThat(read.length).isEqualTo(large.raw().content().length).isGreaterThan(400 * 1024);
        assertThat(read).as("the raw message as the send reads it").isEqualTo(large.raw().content());
    }

    /** Negative control: the digest changes when one column of one row of any content table does. */
    @Test
    void theDigestSeesAChangeInEveryContentTable() throws Exception {
        db.inTransaction(() -> db.enqueueStore().enqueue(TestMails.groups(full("composed"), raw("raw")), "host/server"));
        long composed = db.number("SELECT ID FROM MAIL_MESSAGE WHERE SUBJECT = 'composed'");
        long raw = db.number("SELECT ID FROM MAIL_MESSAGE WHERE SUBJECT = 'raw'");
        byte[] changed = BINARY.clone();
        changed[300] ^= 1;
        List<Object[]> edits = new ArrayList<>(List.of(
                new Object[]{composed, "UPDATE MAIL_MESSAGE SET TEXT_BODY = 'Grüsse' WHERE ID = ?"},
                new Object[]{composed, "UPDATE MAIL_HEADER SET HEADER_VALUE = 'fur Sie' WHERE MAIL_ID = ? AND SEQ_NO = 1"},
                new Object[]{composed, "UPDATE MAIL_ATTACHMENT SET CONTENT = ? WHERE MAIL_ID = ? AND SEQ_NO = 0"},
                new Object[]{raw, "UPDATE MAIL_RAW SET UTF8_HEADERS = 1 WHERE MAIL_ID = ?"}));

        for (Object[] edit : edits) {
            long id = (Long) edit[0];
            String sql = (String) edit[1];
            String before = db.contentDigest(id);
            int rows = sql.contains("CONTENT = ?") ? db.update(sql, changed, id) : db.update(sql, id);
            assertThat(rows).as(sql).isEqualTo(1);
            assertThat(db.contentDigest(id)).as(sql).isNotEqualTo(before);
        }
        String before = db.contentDigest(raw);
        byte[] rawContent = rawContent(raw);
        byte[] sent = raw("raw").raw().content();
        assertThat(rawContent).as("the raw message read back, every byte value").isEqualTo(sent);
        rawContent[rawContent.length - 1] ^= 1;
        db.update("UPDATE MAIL_RAW SET CONTENT = ? WHERE MAIL_ID = ?", rawContent, raw);
        assertThat(db.contentDigest(raw)).as("one bit of the raw message's last byte").isNotEqualTo(before);
    }

    private static byte[] rawContent(long raw) throws Exception {
        try (java.sql.Connection c = db.connect();
             java.sql.PreparedStatement s = c.prepareStatement("SELECT CONTENT FROM MAIL_RAW WHERE MAIL_ID = ?")) {
            s.setLong(1, raw);
            try (java.sql.ResultSet r = s.executeQuery()) {
                assertThat(r.next()).isTrue();
                return r.getBytes(1);
            }
        }
    }
}
