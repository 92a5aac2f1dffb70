package dev.mailqueue.it;

import jakarta.mail.internet.MimeMessage;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A sender is a stranger too (issue 47): a raw message whose header section a bare CR or a bare LF splits
 * differently for one reader than for another cannot smuggle a From past the sender's allow-list, on any of the four
 * ways a raw message comes in: REST ({@code message/rfc822}), the remote EJB's {@code enqueueRaw} (called by
 * another application, caller.war), the Jakarta Mail transport (legacy.war's {@code Transport.send}) and SMTP
 * submission. The attacker is {@code other-sender}, who may send as {@code only@other.example}; the hidden author
 * is {@code ceo@signed.example}, a domain the test server signs with its DKIM key. On main 67a2b04 the bare-CR
 * message was queued on each path and went out with two From fields, the hidden one first, signed for
 * signed.example.
 *
 * <p>Raw messages also answer to the header policy of JSON mail: fields only servers write are refused by name.
 * The refusals never reach the database, so they run once (Derby, and WildFly on PostgreSQL); the message that is
 * taken runs on every database, since a raw message's bytes are a different column type on each.
 */
class HostileRawIT extends QueueServerIT {

    private static final TestUser ATTACKER = TestUser.OTHER_SENDER;

    @Test
    @Tag(QueueServerIT.DATABASE_NEUTRAL)
    void aBareCrOrLfCannotHideAFromOnAnyRawPathAndNothingIsQueuedSignedOrSent() throws Exception {
        String run = Long.toString(System.nanoTime(), 36);
        String to = "hidden-" + run + "@raw.example";
        long stored = QueueApi.storedMails();
        record Form(String name, String hider, String reason) {
        }
        List<Form> forms = List.of(
                new Form("bare CR", "a\rFrom: ceo@signed.example", "holds a CR that is not followed by LF"),
                new Form("bare LF", "a\nFrom: ceo@signed.example", "appears more than once"));

        for (Form form : forms) {
            byte[] message = ("X-Note: " + form.hider() + "\r\nFrom: only@other.example\r\nTo: " + to + "\r\n"
                    + "Subject: " + form.name() + "\r\n\r\nbody\r\n").getBytes(StandardCharsets.US_ASCII);

            HttpResponse<String> rest = QueueApi.postRawAs(ATTACKER, "", message);
            assertThat(rest.statusCode()).as("REST, %s: %s", form.name(), rest.body()).isEqualTo(400);
            assertThat(rest.body()).contains(form.reason());

            HttpResponse<String> ejb = QueueApi.sendAs(ATTACKER, "POST", "/caller/enqueue?outcome=raw&message="
                    + Base64.getUrlEncoder().encodeToString(message));
            assertThat(ejb.body()).as("EJB, %s", form.name()).startsWith("dev.mailqueue.api.InvalidMailException")
                    .contains(form.reason());

            HttpResponse<String> transport = QueueApi.sendAs(ATTACKER, "POST", "/legacy/send?outcome=commit&session="
                    + encode(TransportIT.SESSION) + "&from=" + encode("only@other.example") + "&to=" + encode(to)
                    + "&subject=" + encode(form.name()) + "&header=X-Note&value=" + encode(form.hider()));
            assertThat(transport.body()).as("transport, %s", form.name()).doesNotStartWith("<")
                    .contains(form.reason());

            SubmissionIT.awaitNoLockout(); // SubmissionIT locks this address out for a few seconds
            try (SmtpDialog smtp = new SmtpDialog("localhost", SubmissionIT.PORT)) {
                smtp.startTls();
                assertThat(smtp.login(ATTACKER)).startsWith("235");
                assertThat(smtp.send("MAIL FROM:<only@other.example>")).startsWith("250");
                assertThat(smtp.send("RCPT TO:<" + to + ">")).startsWith("250");
                assertThat(smtp.send("DATA")).startsWith("354");
                smtp.writeRaw(message);
                assertThat(smtp.send(".")).as("submission, %s", form.name()).startsWith("554")
                        .contains(form.reason());
            }
        }

        assertThat(QueueApi.storedMails()).as("nothing queued on any path (read from the database)").isEqualTo(stored);
        assertThat(SMTP.inbox(to)).as("nothing sent (what the SMTP server received)").isEmpty();
    }

    /** The positive control: the same message with its lines ended by LF alone and no hidden field goes out as sent. */
    @Test
    void aMessageWithLfLineEndsIsTakenAndArrivesWithItsOneFrom() throws Exception {
        String to = "lf-" + Long.toString(System.nanoTime(), 36) + "@raw.example";
        byte[] message = ("X-Note: a\nFrom: only@other.example\nTo: " + to + "\nSubject: LF alone\n\nbody\nline two\n")
                .getBytes(StandardCharsets.US_ASCII);

        HttpResponse<String> response = QueueApi.postRawAs(ATTACKER, "", message);

        assertThat(response.statusCode()).as(response.body()).isEqualTo(202);
        await().atMost(Duration.ofSeconds(30)).until(() -> !SMTP.inbox(to).isEmpty());
        MimeMessage arrived = SMTP.inbox(to).get(0);
        assertThat(arrived.getHeader("From")).containsExactly("only@other.example");
        assertThat(arrived.getHeader("X-Note")).containsExactly("a");
        assertThat(arrived.getHeader("DKIM-Signature")).as("nothing signed for signed.example").isNull();
    }

    @Test
    @Tag(QueueServerIT.DATABASE_NEUTRAL)
    void fieldsOnlyServersWriteAreRefusedInARawMessageByName() {
        long stored = QueueApi.storedMails();
        String head = "From: only@other.example\r\nTo: policy@raw.example\r\n";
        List<String> forged = List.of("Resent-From: ceo@signed.example", "Authentication-Results: mx.example; dkim=pass",
                "ARC-Seal: i=1; a=rsa-sha256; d=signed.example; s=x; cv=none; b=y",
                "DKIM-Signature: v=1; a=rsa-sha256; d=signed.example; s=it2026; h=from; bh=x; b=y",
                "Return-Path: <ceo@signed.example>");

        for (String field : forged) {
            HttpResponse<String> response = QueueApi.postRawAs(ATTACKER, "",
                    (head + field + "\r\n\r\nbody\r\n").getBytes(StandardCharsets.US_ASCII));

            assertThat(response.statusCode()).as("%s: %s", field, response.body()).isEqualTo(400);
            assertThat(Problems.fields(response.body())).contains("message." + field.substring(0, field.indexOf(':')));
        }
        assertThat(QueueApi.storedMails()).as("nothing queued").isEqualTo(stored);
    }

    private static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8);
    }
}
