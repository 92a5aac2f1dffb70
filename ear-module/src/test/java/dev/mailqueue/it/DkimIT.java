package dev.mailqueue.it;

import jakarta.mail.internet.MimeMessage;
import org.apache.james.jdkim.DKIMSigner;
import org.apache.james.jdkim.DKIMVerifier;
import org.apache.james.jdkim.exceptions.FailException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * DKIM signing against the real server and SMTP server (issue 31, part 2): the test servers sign mail from
 * {@code signed.example} with the key in {@code src/test/dkim}. What GreenMail received verifies with Apache James
 * jDKIM's verifier fed the TXT record the admin API says to publish, and fails once a signed field is changed; mail
 * of another domain leaves unsigned; raw MIME the application signed for the domain itself is not signed again.
 * Readiness reports the key. Database-neutral: Derby and the WildFly run.
 */
@Tag(QueueServerIT.DATABASE_NEUTRAL)
class DkimIT extends QueueServerIT {

    private final String run = Long.toString(System.nanoTime(), 36);

    static String publishedRecord() {
        HttpResponse<String> keys = QueueApi.getAs(TestUser.VIEWER, QueueApi.BASE, "/api/admin/dkim");
        assertThat(keys.statusCode()).as(keys.body()).isEqualTo(200);
        List<Map<String, Object>> list = QueueApi.jsonList(keys.body());
        assertThat(list).singleElement().satisfies(key -> {
            assertThat(key).containsEntry("domain", "signed.example").containsEntry("selector", "it2026")
                    .containsEntry("dnsName", "it2026._domainkey.signed.example");
            assertThat(((Number) key.get("bits")).intValue()).isEqualTo(2048);
            assertThat(key.get("problem")).isNull();
        });
        return (String) list.get(0).get("dnsRecord");
    }

    private static MimeMessage arrived(String recipient) {
        await().atMost(Duration.ofSeconds(30)).until(() -> !SMTP.inbox(recipient).isEmpty());
        return SMTP.inbox(recipient).get(0);
    }

    private static byte[] bytes(MimeMessage message) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        message.writeTo(out);
        return out.toByteArray();
    }

    @Test
    void mailOfTheSigningDomainArrivesWithASignatureThatVerifiesWithThePublishedRecord() throws Exception {
        String record = publishedRecord();
        assertThat(record).startsWith("v=DKIM1; k=rsa; p=");
        String to = "dkim." + run + "@to.example";

        HttpResponse<String> answer = QueueApi.post("{\"from\":\"Shop <orders@signed.example>\",\"to\":[\"" + to + "\"],"
                + "\"subject\":\"Ihre Bestellung für März\",\"text\":\"Danke.\",\"html\":\"<p>Danke.</p>\"}");
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(202);

        byte[] received = bytes(arrived(to));
        DKIMVerifier verifier = new DKIMVerifier((method, selector, domain) -> {
            assertThat(selector + "._domainkey." + domain).isEqualTo("it2026._domainkey.signed.example");
            return List.of(record);
        });
        assertThat(verifier.verify(new ByteArrayInputStream(received))).as("signatures that verify").hasSize(1);
        byte[] changed = new String(received, StandardCharsets.ISO_8859_1).replace(to, "dkim." + run + "@elsewhere.example")
                .getBytes(StandardCharsets.ISO_8859_1);
        assertThatThrownBy(() -> verifier.verify(new ByteArrayInputStream(changed)))
                .as("a changed To field fails").isInstanceOf(FailException.class);
        assertThat(Observability.ready().body()).contains("\"dkim\"")
                .contains("it2026._domainkey.signed.example (2048 bits)");
    }

    @Test
    void mailOfAnotherDomainLeavesUnsigned() throws Exception {
        String to = "unsigned." + run + "@to.example";

        HttpResponse<String> answer = QueueApi.post("{\"from\":\"news@shop.example\",\"to\":[\"" + to + "\"],"
                + "\"subject\":\"News\",\"text\":\"Hello\"}");
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(202);

        assertThat(arrived(to).getHeader("DKIM-Signature")).isNull();
    }

    @Test
    void rawMimeTheApplicationSignedForTheDomainIsNotSignedAgain() throws Exception {
        String to = "raw-signed." + run + "@to.example";
        byte[] message = ("From: Shop <orders@signed.example>\r\nTo: " + to + "\r\nSubject: Signed by the application\r\n"
                + "Message-ID: <" + run + ".app@signed.example>\r\nDate: Fri, 27 Nov 2026 06:00:00 +0000\r\n"
                + "MIME-Version: 1.0\r\nContent-Type: text/plain; charset=US-ASCII\r\n\r\nSigned upstream.\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        KeyPair keys = KeyPairGenerator.getInstance("RSA").generateKeyPair();
        String signature = new DKIMSigner("v=1; a=rsa-sha256; c=relaxed/relaxed; d=signed.example; s=app;"
                + " h=From:To:Subject:Message-ID:Date; bh=; b=;", keys.getPrivate()).sign(new ByteArrayInputStream(message));
        ByteArrayOutputStream signed = new ByteArrayOutputStream();
        signed.writeBytes((signature.startsWith("DKIM-Signature:") ? signature : "DKIM-Signature: " + signature)
                .getBytes(StandardCharsets.US_ASCII));
        signed.writeBytes(new byte[]{'\r', '\n'});
        signed.writeBytes(message);

        HttpResponse<String> answer = QueueApi.postRaw("", signed.toByteArray());
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(202);

        MimeMessage received = arrived(to);
        assertThat(received.getHeader("DKIM-Signature")).as("the application's signature alone").hasSize(1);
        String appRecord = "v=DKIM1; k=rsa; p=" + Base64.getEncoder().encodeToString(keys.getPublic().getEncoded());
        assertThat(new DKIMVerifier((method, selector, domain) -> List.of(appRecord))
                .verify(new ByteArrayInputStream(bytes(received)))).hasSize(1);
    }
}
