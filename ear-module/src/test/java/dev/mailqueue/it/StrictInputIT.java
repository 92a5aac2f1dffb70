package dev.mailqueue.it;

import dev.mailqueue.api.EnqueueReceipt;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.api.MailView;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 16's wrong answers, one by one, against the running server: JSON is read strictly (no coercion,
 * no unwrapping, nothing after the value); text the database cannot store or a mail cannot carry is
 * refused at once, naming the field, where 61ec004 answered 500 after EclipseLink's retries; times
 * outside what every database stores, or a mail due only after it expires, are refused; a content type
 * cannot smuggle a file name past the blocked types, nor a custom header a sender past the allow-list.
 * Nothing of a refused request is stored; what is right is still accepted.
 */
@Tag(QueueServerIT.DATABASE_NEUTRAL)
class StrictInputIT extends QueueServerIT {

    private static final String GOOD = "{\"from\":\"alice@sender.example\",\"to\":[\"strict@to.example\"],"
            + "\"subject\":\"strict\",\"text\":\"t\",\"notBefore\":\"" + Instant.now().plus(Duration.ofHours(1)) + "\"";

    @Test
    void jsonIsNeitherCoercedNorUnwrappedNorFollowedByAnything() {
        long stored = QueueApi.storedMails();

        refused(GOOD + ",\"headers\":[]}", "headers");
        refused(GOOD + ",\"attachments\":[{\"filename\":\"a.txt\",\"content\":[97,98]}]}", "attachments[0].content");
        refused(GOOD + ",\"priority\":1e400}", "priority");
        refused(GOOD + ",\"priority\":-1e400}", "priority");
        refused(GOOD + ",\"priority\":9223372036854775808}", "priority");
        refused(GOOD + ",\"perRecipient\":\"yes\"}", "perRecipient");
        refused(GOOD.replace("\"from\":\"alice@sender.example\"", "\"from\":[\"alice@sender.example\"]") + "}", "from");
        refused(with("subject", "[\"strict\"]"), "subject");
        refused(GOOD + "} xyz", "");
        refused(GOOD + "}" + GOOD + "}", "");
        HttpResponse<String> nested = QueueApi.postTo("/api/mails/batch", "[[" + GOOD + "}]]");
        Problems.assertProblem(nested, 400, "[0]");

        assertThat(QueueApi.storedMails()).as("nothing stored").isEqualTo(stored);
    }

    @Test
    void textTheQueueCannotStoreOrSendIsRefusedAtOnceNamingTheField() {
        long stored = QueueApi.storedMails();
        for (String field : List.of("subject", "fromName", "text", "html")) {
            long started = System.nanoTime();
            refused(with(field, "\"a\\u0000b\""), field);
            assertThat(Duration.ofNanos(System.nanoTime() - started)).as("refused without database retries")
                    .isLessThan(Duration.ofSeconds(8)); // 61ec004: 10 s of EclipseLink retries, then 500
            HttpResponse<String> batch = QueueApi.postTo("/api/mails/batch",
                    "[" + GOOD + "}," + with(field, "\"a\\u0000b\"") + "]");
            Problems.assertProblem(batch, 400, "[1]." + field);
        }
        refused(with("subject", "\"bell\\u0007\""), "subject");
        refused(with("text", "\"lone \\ud800 surrogate\""), "text");
        refused(GOOD + ",\"headers\":{\"X-Campaign\":\"a\\u0000\"}}", "headers.X-Campaign");
        assertThat(QueueApi.storedMails()).as("nothing stored").isEqualTo(stored);
    }

    @Test
    void timesMustBeStorableAndAMailMustBeDueBeforeItExpires() {
        long stored = QueueApi.storedMails();
        String mail = GOOD.substring(0, GOOD.indexOf(",\"notBefore\""));

        refused(mail + ",\"notBefore\":\"+999999999-12-31T23:59:59Z\"}", "notBefore");
        refused(mail + ",\"notBefore\":\"-999999999-01-01T00:00:00Z\"}", "notBefore");
        refused(mail + ",\"notBefore\":\"9999-12-31T23:59:59Z\"}", "notBefore");
        refused(mail + ",\"notBefore\":\"" + Instant.now().plus(Duration.ofDays(30)) + "\"}", "notBefore");
        refused(mail + ",\"expiresAt\":\"+999999999-12-31T23:59:59Z\"}", "expiresAt");
        refused(mail + ",\"notBefore\":\"" + Instant.now().plus(Duration.ofDays(2)) + "\",\"expiresAt\":\""
                + Instant.now().plus(Duration.ofDays(1)) + "\"}", "expiresAt");
        assertThat(QueueApi.storedMails()).as("nothing stored").isEqualTo(stored);

        EnqueueReceipt inFourDays = QueueApi.enqueue(new MailRequest().from("alice@sender.example")
                .to("four-days@to.example").subject("Tab\there").text("Line one\r\n\tline two")
                .notBefore(Instant.now().plus(Duration.ofDays(4))));
        MailView queued = QueueApi.find(inFourDays.getId());
        assertThat(queued.getStatus()).isEqualTo(MailStatus.QUEUED);
    }

    @Test
    void aContentTypeMayNotNameAFileAndServerWrittenHeadersAreRefused() {
        long stored = QueueApi.storedMails();
        refused(GOOD + ",\"attachments\":[{\"filename\":\"invoice.pdf\",\"contentType\":"
                + "\"application/pdf; filename=\\\"evil.exe\\\"\",\"content\":\"YWI=\"}]}", "attachments[0].contentType");
        refused(GOOD + ",\"attachments\":[{\"filename\":\"invoice\\u202Efdp.scr\",\"content\":\"YWI=\"}]}",
                "attachments[0].filename");
        for (String name : List.of("Resent-From", "resent-sender", "Received", "Authentication-Results",
                "DKIM-Signature", "ARC-Seal", "arc-authentication-results")) {
            refused(GOOD + ",\"headers\":{\"" + name + "\":\"ceo@bank.example\"}}", "headers." + name);
        }
        assertThat(QueueApi.storedMails()).as("nothing stored").isEqualTo(stored);

        HttpResponse<String> fine = QueueApi.post(GOOD + ",\"headers\":{\"List-Unsubscribe\":\"<mailto:u@shop.example>\"},"
                + "\"attachments\":[{\"filename\":\"notes.txt\",\"contentType\":\"text/plain; charset=utf-8\",\"content\":\"YWI=\"}]}");
        assertThat(fine.statusCode()).as(fine.body()).isEqualTo(202);
    }

    /** @return the good mail with one member set to a raw JSON value (replacing the member it has of that name) */
    private static String with(String field, String rawValue) {
        String mail = GOOD + "}";
        java.util.regex.Matcher member = java.util.regex.Pattern.compile("\"" + field + "\":\"[^\"]*\"").matcher(mail);
        if (member.find()) {
            return mail.substring(0, member.start()) + "\"" + field + "\":" + rawValue + mail.substring(member.end());
        }
        return GOOD + ",\"" + field + "\":" + rawValue + "}";
    }

    private static void refused(String body, String field) {
        Problems.assertProblem(QueueApi.post(body), 400, field);
    }
}
