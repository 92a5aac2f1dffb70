package dev.mailqueue.dispatch.control;

import dev.mailqueue.dkim.control.DkimKeys;
import dev.mailqueue.dkim.control.DkimKeysTest;
import dev.mailqueue.settings.control.Settings;
import jakarta.mail.Session;
import jakarta.mail.internet.MimeMessage;
import org.apache.james.jdkim.DKIMVerifier;
import org.apache.james.jdkim.exceptions.FailException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A message sent with a DKIM key verifies with Apache James jDKIM's verifier fed the TXT record the queue tells
 * the operator to publish, and stops verifying once a signed field is changed.
 */
class DkimSigningTest {

    final Session session = Session.getInstance(new Properties());

    @TempDir
    Path dir;

    DkimKeys keys(String domain) throws Exception {
        return DkimKeys.of(Settings.of(Map.of(DkimKeys.KEYS, "shop", DkimKeys.HEADERS, "From:To:Subject:Date:Message-ID",
                "mailqueue.dkim.shop.domain", domain, "mailqueue.dkim.shop.selector", "mq2026",
                "mailqueue.dkim.shop.key-file", DkimKeysTest.pem(dir, 2048).toString())));
    }

    GatedMessage message(String from) throws Exception {
        GatedMessage message = new GatedMessage(session, "<1.dkim@shop.example>");
        message.setHeader("From", from);
        message.setHeader("To", "customer@to.example");
        message.setSubject("Your order", "UTF-8");
        message.setSentDate(new Date());
        message.setText("Thank you.\nSee you soon.\n", "UTF-8");
        message.saveChanges();
        return message;
    }

    static byte[] written(GatedMessage message) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        message.writeTo(out, new String[]{"Bcc"});
        return out.toByteArray();
    }

    static DKIMVerifier verifier(DkimKeys keys) {
        String record = keys.all().get(0).key().dnsRecord();
        return new DKIMVerifier((method, selector, domain) -> List.of(record));
    }

    @Test
    void mailOfTheKeysDomainIsSignedAndVerifiesWithThePublishedRecord() throws Exception {
        DkimKeys keys = keys("shop.example");
        GatedMessage message = message("Shop <Orders@Shop.Example>");
        message.signWith(new DkimSigning(keys).keyFor(message));

        byte[] sent = written(message);

        String text = new String(sent, StandardCharsets.US_ASCII);
        assertThat(text).startsWith("DKIM-Signature: ").contains("a=rsa-sha256;").contains("d=shop.example;")
                .contains("s=mq2026;").contains("c=relaxed/relaxed;");
        assertThat(text.lines()).as("folded lines").allSatisfy(line -> assertThat(line).hasSizeLessThan(400));
        assertThat(verifier(keys).verify(new ByteArrayInputStream(sent))).as("signatures that verify").hasSize(1);
        byte[] changed = new String(sent, StandardCharsets.US_ASCII).replace("Your order", "Your prize")
                .getBytes(StandardCharsets.US_ASCII);
        assertThatThrownBy(() -> verifier(keys).verify(new ByteArrayInputStream(changed)))
                .as("a changed Subject fails").isInstanceOf(FailException.class);
    }

    @Test
    void mailOfAnotherDomainIsNotSigned() throws Exception {
        GatedMessage message = message("news@other.example");

        assertThat(new DkimSigning(keys("shop.example")).keyFor(message)).isNull();
        assertThat(DkimSigning.NONE.keyFor(message("a@shop.example"))).isNull();
    }

    @Test
    void aMessageTheApplicationSignedForTheDomainIsNotSignedAgainButOneOfAnotherDomainIs() throws Exception {
        DkimSigning signing = new DkimSigning(keys("shop.example"));
        GatedMessage own = message("orders@shop.example");
        own.addHeader("DKIM-Signature", "v=1; a=rsa-sha256; c=relaxed/simple;\r\n\td=Shop.Example; s=app; h=From; bh=x; b=y");
        GatedMessage esp = message("orders@shop.example");
        esp.addHeader("DKIM-Signature", "v=1; a=rsa-sha256; d=esp.example; s=app; h=From; bh=x; b=y");

        assertThat(signing.keyFor(own)).isNull();
        assertThat(signing.keyFor(esp)).isNotNull();
    }

    @Test
    void aKeyThatAsksForItSignsAMessageTheApplicationSignedForTheDomainAsWell() throws Exception {
        DkimSigning signing = new DkimSigning(DkimKeys.of(Settings.of(Map.of(DkimKeys.KEYS, "shop", DkimKeys.HEADERS,
                "From:To:Subject", "mailqueue.dkim.shop.domain", "shop.example", "mailqueue.dkim.shop.selector", "mq2026",
                "mailqueue.dkim.shop.key-file", DkimKeysTest.pem(dir, 2048).toString(),
                "mailqueue.dkim.shop.sign-signed", "true"))));
        GatedMessage own = message("orders@shop.example");
        own.addHeader("DKIM-Signature", "v=1; a=rsa-sha256; d=shop.example; s=old; h=From; bh=x; b=y");

        assertThat(signing.keyFor(own)).isNotNull();
    }

    @Test
    void aKeyThatCannotBeReadHoldsItsDomainsMailInsteadOfSendingItUnsigned() throws Exception {
        DkimKeys keys = DkimKeys.of(Settings.of(Map.of(DkimKeys.KEYS, "shop", DkimKeys.HEADERS, "From",
                "mailqueue.dkim.shop.domain", "shop.example", "mailqueue.dkim.shop.selector", "mq2026",
                "mailqueue.dkim.shop.key-file", dir.resolve("missing.pem").toString())));

        assertThatThrownBy(() -> new DkimSigning(keys).keyFor(message("orders@shop.example")))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("missing.pem")
                .hasMessageContaining("not sent unsigned");
    }

    @Test
    void theSignatureCoversAFieldAddedAfterComposing() throws Exception {
        DkimKeys keys = DkimKeys.of(Settings.of(Map.of(DkimKeys.KEYS, "shop", DkimKeys.HEADERS, "From:List-Unsubscribe",
                "mailqueue.dkim.shop.domain", "shop.example", "mailqueue.dkim.shop.selector", "mq2026",
                "mailqueue.dkim.shop.key-file", DkimKeysTest.pem(dir, 2048).toString())));
        GatedMessage message = message("orders@shop.example");
        message.signWith(new DkimSigning(keys).keyFor(message));
        message.setHeader("List-Unsubscribe", "<https://shop.example/u/1>");

        byte[] sent = written(message);

        assertThat(verifier(keys).verify(new ByteArrayInputStream(sent))).hasSize(1);
        byte[] changed = new String(sent, StandardCharsets.US_ASCII).replace("/u/1", "/u/2").getBytes(StandardCharsets.US_ASCII);
        assertThatThrownBy(() -> verifier(keys).verify(new ByteArrayInputStream(changed))).isInstanceOf(FailException.class);
    }

    @Test
    void theTransactionsOfOneAttemptSendTheSameSignedBytesAndTheNextAttemptSignsAgain() throws Exception {
        DkimKeys keys = keys("shop.example");
        GatedMessage message = message("orders@shop.example");
        message.signWith(new DkimSigning(keys).keyFor(message));
        message.arm(SendGate.OPEN, 0);

        byte[] first = written(message);
        message.rearm(); // the next recipient's transaction (VERP)
        byte[] second = written(message);
        message.setHeader("List-Id", "<news.shop.example>"); // changed before the next attempt
        message.arm(SendGate.OPEN, 0);
        byte[] retried = written(message);

        assertThat(second).isEqualTo(first);
        assertThat(new String(second, StandardCharsets.US_ASCII).split("DKIM-Signature:", -1)).as("one signature").hasSize(2);
        assertThat(verifier(keys).verify(new ByteArrayInputStream(first))).hasSize(1);
        assertThat(new String(retried, StandardCharsets.US_ASCII)).contains("List-Id: <news.shop.example>");
        assertThat(verifier(keys).verify(new ByteArrayInputStream(retried))).as("signed afresh").hasSize(1);
    }
}
