package dev.mailqueue.it;

import dev.mailqueue.api.EnqueueReceipt;
import dev.mailqueue.api.MailRequest;
import jakarta.mail.Session;
import jakarta.mail.internet.MimeMessage;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

/**
 * The bounce intake killed mid-run (issue 11): 120 Delivery Status Notifications for 120 sent mails wait in
 * a bounce mailbox that only the second test server reads; it is killed with SIGKILL while it records them
 * and started again. Every report is then recorded exactly once: no report lost (each mail has its BOUNCED
 * recipient, its attempt-log row and its suppression), none counted twice (one BOUNCED row a mail, one
 * report row each), and the mailbox is empty. The reports are copies of a real Postfix DSN
 * ({@code postfix-failed.eml}, see BounceClassifierTest) addressed to each mail. Not on Derby, which two
 * servers cannot share.
 */
class IntakeCrashIT extends QueueServerIT {

    private static final int REPORTS = 120;
    private static final Path POSTFIX_DSN = Path.of("../ejb-module/src/test/resources/dev/mailqueue/bounce/control/postfix-failed.eml");

    @Test
    void anIntakeKilledWhileItRecordsLosesNoReportAndCountsNoneTwice() throws Exception {
        assumeThat(System.getProperty("it.db", "derby")).as("a second server needs a shared database").isNotEqualTo("derby");
        List<EnqueueReceipt> mails = sendMails();
        long reportsBefore = count("BOUNCE_REPORT");
        long suppressionsBefore = count("SUPPRESSION");
        String dsn = Files.readString(POSTFIX_DSN, StandardCharsets.UTF_8);

        try (SecondServer second = SecondServer.startEdited(IntakeCrashIT::crashMailbox)) {
            for (int i = 0; i < REPORTS; i++) { // now, so that the intake cannot have read them all before the kill
                SMTP.deliver(SmtpCatcher.CRASH_BOUNCES, report(dsn, i, mails.get(i).getMessageId()));
            }
            await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(20))
                    .until(() -> count("BOUNCE_REPORT") - reportsBefore >= 20);
            second.kill();
            long atKill = count("BOUNCE_REPORT") - reportsBefore;
            System.out.printf("killed the intake after %d of %d reports were recorded%n", atKill, REPORTS);
            assertThat(atKill).as("killed in the middle of the run").isLessThan(REPORTS);
            second.restart();
            await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(500))
                    .until(() -> SMTP.inbox(SmtpCatcher.CRASH_BOUNCES).isEmpty());
        }

        assertThat(count("BOUNCE_REPORT") - reportsBefore).as("one row per report").isEqualTo(REPORTS);
        assertThat(count("SUPPRESSION") - suppressionsBefore).as("one suppression per bounced address").isEqualTo(REPORTS);
        long first = mails.stream().mapToLong(EnqueueReceipt::getId).min().orElseThrow();
        long last = mails.stream().mapToLong(EnqueueReceipt::getId).max().orElseThrow();
        Map<Long, List<String>> outcomes = outcomes(first, last);
        for (EnqueueReceipt mail : mails) {
            assertThat(outcomes.get(mail.getId())).as("attempt log of mail " + mail.getId())
                    .containsExactlyInAnyOrder("SENT", "BOUNCED");
        }
    }

    /** Sends one mail to each of {@value #REPORTS} addresses (one batch) and waits until all are SENT. */
    private static List<EnqueueReceipt> sendMails() {
        List<String> json = new ArrayList<>();
        for (int i = 0; i < REPORTS; i++) {
            json.add(QueueApi.toJson(new MailRequest().from("news@sender.example").to(address(i))
                    .subject("crash " + i).text("Hello")));
        }
        HttpResponse<String> response = QueueApi.postTo("/api/mails/batch", "[" + String.join(",", json) + "]");
        assertThat(response.statusCode()).as(response.body()).isEqualTo(202);
        List<EnqueueReceipt> receipts = QueueApi.receipts(response.body());
        long first = receipts.stream().mapToLong(EnqueueReceipt::getId).min().orElseThrow();
        long last = receipts.stream().mapToLong(EnqueueReceipt::getId).max().orElseThrow();
        await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500))
                .until(() -> outcomes(first, last).values().stream().filter(o -> o.contains("SENT")).count() == REPORTS);
        return receipts;
    }

    private static String address(int i) {
        return "gone" + i + "@intake-crash.test";
    }

    /** @return Postfix's report, made out for mail {@code i}: its Message-ID, its recipient, a report id of its own */
    private static MimeMessage report(String dsn, int i, String messageId) throws Exception {
        String bare = messageId.substring(1, messageId.length() - 1);
        String text = dsn.replace("<20261123162342.550A621252B@mta.test>", "<crash-" + i + "@mta.test>")
                .replace("<fixture-1@mailqueue.test>", messageId)
                .replace("fixture-1@mailqueue.test", bare)
                .replace("nobody@bounce.test", address(i));
        return new MimeMessage(Session.getInstance(new Properties()),
                new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)));
    }

    /** The second server reads its own bounce mailbox, which the first server does not. */
    private static String crashMailbox(String overrides) {
        String own = "user=\"bounces@mailqueue.test\" password=\"bounces\"";
        assertThat(overrides).as("the test servers' bounce mailbox").contains(own);
        return overrides.replace(own, "user=\"" + SmtpCatcher.CRASH_BOUNCES + "\" password=\"crash\"");
    }

    private static long count(String table) {
        HttpResponse<String> response = QueueApi.get("/probe/db?op=count&table=" + table);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return Long.parseLong(response.body().strip());
    }

    /** @return per mail id in the range, the outcomes of its attempt log */
    private static Map<Long, List<String>> outcomes(long first, long last) {
        HttpResponse<String> response = QueueApi.get("/probe/db?op=attempts&from=" + first + "&to=" + last);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        Map<Long, List<String>> result = new HashMap<>();
        response.body().lines().filter(l -> !l.isBlank()).map(l -> l.split(",")).forEach(f ->
                result.computeIfAbsent(Long.parseLong(f[0]), id -> new ArrayList<>()).add(f[f.length - 1]));
        return result.entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
    }
}
