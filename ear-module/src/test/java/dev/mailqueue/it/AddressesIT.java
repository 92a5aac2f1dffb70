package dev.mailqueue.it;

import dev.mailqueue.api.AddressView;
import dev.mailqueue.api.EnqueueReceipt;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.api.MailView;
import dev.mailqueue.api.RecipientView;
import jakarta.mail.Message;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;
import jakarta.mail.internet.MimeUtility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Addresses as people write them (issue 12), end to end: names given as {@code {name, address}} objects and
 * name-addr strings, a non-ASCII local part sent over SMTPUTF8 to a real Postfix (src/test/postfix, started
 * here, {@code smtputf8_enable = yes} and {@code strict_smtputf8 = yes}, so that it takes the address only if
 * MAIL FROM carried the SMTPUTF8 parameter; account {@code utf8}, whose session has {@code mail.mime.allowutf8}
 * as the shipped one does),
 * the same address failing alone with the RFC 6531 reason on the same Postfix's second listener, which does not
 * offer SMTPUTF8 (account {@code ascii}, with the shipped session's {@code allowutf8}), while an IDN co-recipient
 * receives the mail at its A-label. Addresses are unique per run (Derby outlives runs in target/). Both tests
 * need Debian's {@code postfix} and root, as BounceIntakeIT, and are skipped without them (CI fails on that skip).
 */
class AddressesIT extends QueueServerIT {

    private static final String RUN = Long.toString(System.currentTimeMillis(), 36);

    @AfterEach
    void stopPostfix() throws Exception {
        PrivatePostfix.stop();
    }

    @Test
    void aNonAsciiMailboxArrivesOverSmtpUtf8WithItsUnicodeNameEncoded() throws Exception {
        PrivatePostfix.start(); // only this test needs it: the other runs on GreenMail alone
        String jose = "josé." + RUN + "@mailqueue.test"; // Postfix keeps mailqueue.test's mail in its Maildir
        Path maildir = PrivatePostfix.maildir();
        List<Path> before = Files.isDirectory(maildir) ? files(maildir) : List.of();
        HttpResponse<String> response = QueueApi.post("""
                {"from": {"name": "Envío Ñandú", "address": "news@sender.example"}, "account": "utf8",
                 "to": [{"name": "José Ñandú, Jr.", "address": "%s"}], "subject": "Olá", "text": "Olá José"}
                """.formatted(jose));
        assertThat(response.statusCode()).as(response.body()).isEqualTo(202);
        EnqueueReceipt receipt = QueueApi.receipt(response.body());
        QueueApi.awaitStatus(receipt.getId(), MailStatus.SENT, Duration.ofSeconds(30));

        await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(200))
                .until(() -> Files.isDirectory(maildir) && files(maildir).stream().anyMatch(p -> !before.contains(p)
                        && read(p).contains(jose)));
        String raw = files(maildir).stream().filter(p -> !before.contains(p)).map(AddressesIT::read)
                .filter(text -> text.contains(jose)).findFirst().orElseThrow();
        String headers = MimeUtility.unfold(raw.substring(0, raw.indexOf("\n\n")));
        assertThat(headers).as("RFC 6532: the address in UTF-8, the name RFC 2047-encoded")
                .contains("To: =?UTF-8?Q?Jos=C3=A9_=C3=91and=C3=BA=2C_Jr=2E?= <" + jose + ">")
                .contains("From: =?UTF-8?Q?Env=C3=ADo_=C3=91and=C3=BA?= <news@sender.example>")
                .contains("Delivered-To: " + jose)
                .as("RFC 6531 §3.7.3: Postfix (strict_smtputf8) names the transaction that MAIL FROM ... SMTPUTF8 opened")
                .containsPattern("Received: from [^\\n]*with UTF8E?SMTP");
        MailView view = QueueApi.find(receipt.getId());
        assertThat(view.getAddresses()).filteredOn(a -> a.getField().equals("to")).singleElement().satisfies(a -> {
            assertThat(a.getName()).isEqualTo("José Ñandú, Jr.");
            assertThat(a.getAddress()).isEqualTo(jose);
            assertThat(a.isSmtpUtf8()).isTrue();
        });
    }

    @Test
    void withoutSmtpUtf8ThatRecipientFailsAloneAndAnIdnCoRecipientGetsTheMailAtItsALabel() throws Exception {
        PrivatePostfix.start(); // its second listener does not offer SMTPUTF8
        String jose = "josé." + RUN + "@example.test";
        String pat = "pat." + RUN + "@bücher.example";
        String patAscii = "pat." + RUN + "@xn--bcher-kva.example";
        HttpResponse<String> response = QueueApi.post("""
                {"from": "news@sender.example", "to": ["José <%s>", "\\"Pat, Bücher\\" <%s>"],
                 "account": "ascii", "subject": "Olá", "text": "Olá"}
                """.formatted(jose, pat));
        assertThat(response.statusCode()).as(response.body()).isEqualTo(202);
        EnqueueReceipt receipt = QueueApi.receipt(response.body());

        MailView sent = QueueApi.awaitStatus(receipt.getId(), MailStatus.SENT, Duration.ofSeconds(30));
        assertThat(sent.getRecipients()).filteredOn(r -> r.getAddress().equals(jose)).singleElement()
                .satisfies((RecipientView r) -> {
                    assertThat(r.getStatus()).isEqualTo("REFUSED");
                    assertThat(r.getEnhancedStatus()).isEqualTo("5.6.7");
                    assertThat(r.getReplyText()).contains("SMTPUTF8", "RFC 6531 3.2");
                });
        assertThat(sent.getAddresses()).filteredOn(a -> a.getField().equals("to"))
                .extracting(AddressView::getAddress, AddressView::getUnicodeAddress)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(jose, jose),
                        org.assertj.core.groups.Tuple.tuple(patAscii, pat));
        // Postfix relays it to GreenMail
        List<MimeMessage> inbox = await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(200))
                .until(() -> SMTP.inbox(patAscii), messages -> !messages.isEmpty());
        assertThat(inbox).singleElement().satisfies(m -> {
            assertThat(MimeUtility.unfold(m.getHeader("To", ","))).as("josé downgraded to an encoded empty group")
                    .isASCII().contains(":;");
            assertThat(java.util.Arrays.stream(m.getRecipients(Message.RecipientType.TO)).map(a -> (InternetAddress) a)
                    .filter(a -> !a.isGroup()).toList()).singleElement().satisfies(a -> {
                        assertThat(a.getAddress()).isEqualTo(patAscii);
                        assertThat(a.getPersonal()).isEqualTo("Pat, Bücher");
                    });
        });
    }

    private static List<Path> files(Path maildir) throws IOException {
        try (var files = Files.list(maildir)) {
            return files.toList();
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }
}
