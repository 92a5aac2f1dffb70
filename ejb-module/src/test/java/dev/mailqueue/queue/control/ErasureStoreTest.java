package dev.mailqueue.queue.control;

import dev.mailqueue.api.MailStatus;
import dev.mailqueue.testsupport.QueueDatabase;
import dev.mailqueue.testsupport.TestMails;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

import static dev.mailqueue.testsupport.TestMails.mail;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Erasure (V21) on the real schema of each database: every mail that names the address as sender or recipient goes
 * with all that is its own, a mail being sent waits until its claim ends, the mails of others stay (a longer address
 * that contains it too), an unsubscribe's event and the suppression entries in the clear go, the address stays
 * suppressed under its keyed hash (and only under the right key), and afterwards no text or binary column of any
 * table holds the address.
 */
@Tag("database")
class ErasureStoreTest {

    static final Instant NOW = Instant.parse("2030-03-14T09:26:53Z");
    static final String SERVER = "host/server";
    static final String SECRET = "erasure-test-secret-of-32-characters-at-least";
    static final String PERSON = "alice@example.com";

    @RegisterExtension
    static final QueueDatabase db = QueueDatabase.perTestClass();

    ErasureStore cut;
    ErasureReceipts receipts;
    EnqueueStore enqueuer;

    @BeforeEach
    void store() {
        db.tables().withErasureKey(ErasureKey.of(SECRET));
        cut = ErasureStore.on(db.tables());
        receipts = ErasureReceipts.on(db.tables());
        enqueuer = db.enqueueStore();
    }

    Enqueued enqueue(NewMail mail) {
        return db.inTransaction(() -> enqueuer.enqueue(TestMails.groups(mail), SERVER)).get(0).get(0);
    }

    NewMail from(NewMail m, String from) {
        return new NewMail(m.messageId(), m.priority(), m.createdAt(), m.notBefore(), m.attempts(), m.expiresAt(), from,
                m.fromName(), m.replyTo(), m.to(), m.cc(), m.bcc(), m.subject(), m.text(), m.html(), m.account(),
                m.enqueuedBy(), m.attachments(), m.headers());
    }

    void sent(long id) {
        db.update("DELETE FROM MAIL_QUEUE WHERE MAIL_ID = ?", id);
        db.update("INSERT INTO MAIL_ATTEMPT (ID, MAIL_ID, STARTED_AT, FINISHED_AT, SERVER_INSTANCE, LEASE_OWNER, OUTCOME,"
                + " MAIL_STATUS, RECIPIENT, SMTP_REPLY_TEXT) VALUES (" + AttemptLog.nextId(dev.mailqueue.schema.control
                .DatabaseKind.valueOf(QueueDatabase.KIND.toUpperCase(Locale.ROOT))) + ", ?, ?, ?, 'host/server', 'test',"
                + " 'SENT', 'SENT', ?, ?)", id, Timestamp.from(NOW), Timestamp.from(NOW), PERSON, "250 ok " + PERSON);
    }

    long rows(String table, long id) {
        return db.number("SELECT COUNT(*) FROM " + table + " WHERE MAIL_ID = ?", id);
    }

    @Test
    void anErasureRemovesEveryMailThatNamesTheAddressAndLeavesItSuppressedUnderItsKeyOnly() throws Exception {
        long toPerson = enqueue(TestMails.content(TestMails.to(mail("to the person", 4, NOW), List.of(PERSON), List.of(),
                        List.of()), "Hello " + PERSON, null,
                List.of(new NewMail.Attachment("f.txt", "text/plain", PERSON.getBytes(StandardCharsets.UTF_8))),
                List.of(new NewMail.Header("X-Customer", PERSON)))).id();
        sent(toPerson);
        db.update("INSERT INTO BOUNCE_REPORT (REPORT_KEY, RECEIVED_AT, KIND, MAIL_ID, RECIPIENTS) VALUES"
                + " ('<dsn-1@example.net>', ?, 'FAILED', ?, 1)", Timestamp.from(NOW), toPerson);
        long fromPerson = enqueue(from(mail("from the person", 4, NOW), "Alice@Example.COM")).id();
        long ccPerson = enqueue(TestMails.to(mail("cc to the person", 4, NOW), List.of("bob@example.com"),
                List.of(PERSON.toUpperCase(Locale.ROOT)), List.of())).id();
        long beingSent = enqueue(TestMails.to(mail("being sent", 4, NOW), List.of(PERSON), List.of(), List.of())).id();
        long longer = enqueue(TestMails.to(mail("to a longer address", 4, NOW), List.of("mal" + PERSON), List.of(),
                List.of())).id();
        long other = enqueue(mail("to someone else", 4, NOW)).id();
        SuppressionStore suppressions = SuppressionStore.on(db.tables());
        assertThat(suppressions.add(PERSON, "news", SuppressionStore.Reason.UNSUBSCRIBE, null, NOW)).isTrue();
        long unsubscribed = db.number("SELECT MAX(ID) FROM MAIL_ATTEMPT WHERE MAIL_ID IS NULL");
        for (long[] delivery : new long[][]{{toPerson, toPerson}, {0, unsubscribed}}) {
            db.update("INSERT INTO WEBHOOK_DELIVERY (ENDPOINT, EVENT_ID, MAIL_ID, STATUS, ATTEMPTS, CREATED_AT,"
                    + " NEXT_ATTEMPT_AT, LAST_ERROR, ATTEMPT_ID) VALUES ('crm', ?, " + (delivery[0] == 0 ? "NULL" : delivery[0])
                    + ", 'PENDING', 0, ?, ?, ?, ?)", delivery[1], Timestamp.from(NOW), Timestamp.from(NOW),
                    "refused " + PERSON, delivery[1]);
        }
        Lease lease = db.inTransaction(() -> db.claimStore().start("host/server#1", NOW, NOW.plusSeconds(60)));
        db.update("UPDATE MAIL_QUEUE SET CLAIMER = ? WHERE MAIL_ID = ?", lease.claimer(), beingSent);

        long id = db.inTransaction(() -> receipts.request(List.of(" Alice@example.com", PERSON), "admin", NOW));
        long upTo = receipts.receipt(id).orElseThrow().upToMailId();
        assertThat(upTo).isEqualTo(other);
        assertThat(receipts.addresses(id)).containsExactly(PERSON);

        List<Long> found = new ArrayList<>();
        for (long after = 0; after < upTo; ) {
            ErasureStore.Found window = cut.find(List.of(PERSON), after, upTo);
            found.addAll(window.mailIds());
            after = window.scannedTo();
        }
        assertThat(found).as("named as recipient, sender or Cc, in any case; not a longer address nor another's mail")
                .containsExactly(toPerson, fromPerson, ccPerson, beingSent);

        assertThat(db.inTransaction(() -> cut.erase(id, found))).as("a claimer holds it").containsExactly(beingSent);
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_MESSAGE WHERE ID IN (?, ?, ?)", toPerson, fromPerson, ccPerson))
                .isZero();
        for (String table : List.of("MAIL_ATTEMPT", "MAIL_ATTACHMENT", "MAIL_HEADER", "MAIL_RECIPIENT", "WEBHOOK_DELIVERY",
                "BOUNCE_REPORT")) {
            assertThat(rows(table, toPerson)).as(table).isZero();
        }
        assertThat(rows("MAIL_QUEUE", beingSent)).as("the mail being sent keeps its claim").isEqualTo(1);

        db.update("UPDATE MAIL_QUEUE SET CLAIMER = NULL WHERE MAIL_ID = ?", beingSent); // its send ended, undelivered
        assertThat(db.inTransaction(() -> cut.erase(id, cut.existing(List.of(beingSent))))).isEmpty();
        db.inTransaction(() -> {
            cut.finish(id, NOW);
            return null;
        });

        ErasureReceipts.Receipt receipt = receipts.receipt(id).orElseThrow();
        assertThat(receipt.completedAt()).isEqualTo(NOW);
        assertThat(receipt.addresses()).isEqualTo(1);
        assertThat(receipt.counts()).containsEntry("MAILS", 4L).containsEntry("CANCELLED", 3L)
                .containsEntry("LOG_ROWS", 2L) // the sent mail's row and the unsubscribe's event
                .containsEntry("ATTACHMENTS", 1L).containsEntry("WEBHOOK_DELIVERIES", 2L)
                .containsEntry("BOUNCE_REPORTS", 1L).containsEntry("SUPPRESSIONS", 1L);
        assertThat(receipts.addresses(id)).as("the addresses go once it completed").isEmpty();
        assertThat(db.number("SELECT COUNT(*) FROM MAIL_MESSAGE WHERE ID IN (?, ?)", longer, other))
                .as("other people's mail stays").isEqualTo(2);

        assertThat(holding(PERSON)).as("columns that still hold the address").isEmpty();
        assertThat(holding("mal" + PERSON)).as("the control: the scan finds an address that is there").isNotEmpty();
        assertThat(db.text("SELECT ADDRESS FROM SUPPRESSION WHERE REASON = 'ERASED'"))
                .isEqualTo(ErasureKey.of(SECRET).key(PERSON)).startsWith(ErasureKey.PREFIX).hasSize(71);

        assertThat(suppressions.suppressing("Alice@Example.com", null)).as("the operator's check agrees with the enqueue")
                .extracting(SuppressionStore.Entry::reason).isEqualTo(SuppressionStore.Reason.ERASED);
        assertThat(suppressions.suppressing("mal" + PERSON, null)).isNull();
        assertThat(enqueue(TestMails.to(mail("later, to the person", 4, NOW), List.of("ALICE@example.com"), List.of(),
                List.of())).status()).as("suppressed under its key").isEqualTo(MailStatus.SUPPRESSED);
        assertThat(enqueue(TestMails.to(mail("later, to a longer address", 4, NOW), List.of("mal" + PERSON), List.of(),
                List.of())).status()).isEqualTo(MailStatus.QUEUED);
        db.tables().withErasureKey(ErasureKey.of(SECRET.replace('e', 'f')));
        assertThat(enqueue(TestMails.to(mail("later, under another secret", 4, NOW), List.of(PERSON), List.of(),
                List.of())).status()).as("another secret does not recognise it").isEqualTo(MailStatus.QUEUED);
        db.tables().withErasureKey(null);
        assertThatThrownBy(() -> receipts.request(List.of(PERSON), "admin", NOW)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(ErasureKey.SETTING);
    }

    /**
     * @return table.column of every character or binary column of the schema (views too) whose value holds
     *         {@code address} whole, in any case: not as the end of a longer one ({@code malalice@...})
     */
    static List<String> holding(String address) throws SQLException {
        List<String> found = new ArrayList<>();
        Pattern whole = Pattern.compile("(?<![a-z0-9._%+-])" + Pattern.quote(address) + "(?![a-z0-9-]|\\.[a-z0-9])");
        try (Connection c = db.connect()) {
            DatabaseMetaData meta = c.getMetaData();
            String q = meta.getIdentifierQuoteString();
            List<String[]> columns = new ArrayList<>();
            try (ResultSet r = meta.getColumns(c.getCatalog(), c.getSchema(), "%", "%")) {
                while (r.next()) {
                    columns.add(new String[]{r.getString("TABLE_NAME"), r.getString("COLUMN_NAME")});
                }
            }
            for (String[] column : columns) {
                try (var s = c.createStatement();
                     ResultSet r = s.executeQuery("SELECT " + q + column[1] + q + " FROM " + q + column[0] + q)) {
                    int type = r.getMetaData().getColumnType(1);
                    boolean binary = type == Types.BLOB || type == Types.BINARY || type == Types.VARBINARY
                            || type == Types.LONGVARBINARY;
                    while (r.next()) {
                        String value = binary ? latin1(r.getBytes(1)) : r.getString(1);
                        if (value != null && whole.matcher(value.toLowerCase(Locale.ROOT)).find()) {
                            found.add(column[0] + "." + column[1]);
                            break;
                        }
                    }
                }
            }
        }
        return found;
    }

    private static String latin1(byte[] value) {
        return value == null ? null : new String(value, StandardCharsets.ISO_8859_1);
    }
}
