package dev.mailqueue.mail.control;

import dev.mailqueue.api.FieldError;
import dev.mailqueue.dkim.control.DkimKeys;
import dev.mailqueue.mime.control.HeaderLimits;
import dev.mailqueue.settings.control.Settings;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class HeaderPolicyTest {

    private static final String OWN = "From: me@allowed.example\r\nTo: b@raw.example\r\nSubject: hi\r\n"
            + "Content-Type: text/plain; charset=UTF-8\r\nReceived: from client by relay; Thu, 26 Nov 2026 08:00:00 +0000\r\n";

    private final HeaderPolicy policy = policy();

    /** The queue signs queue.example (its key file need not exist for the policy to know the domain). */
    private static HeaderPolicy policy() {
        HeaderPolicy policy = new HeaderPolicy();
        policy.dkim = DkimKeys.of(Settings.of(Map.of(DkimKeys.KEYS, "q", DkimKeys.HEADERS, "From",
                "mailqueue.dkim.q.domain", "queue.example", "mailqueue.dkim.q.selector", "s1",
                "mailqueue.dkim.q.key-file", "/nonexistent/q.pem")));
        return policy;
    }

    @Test
    void aRawMessagesOwnFieldsTraceAndForeignSignaturePass() throws Exception {
        String signed = OWN + "DKIM-Signature: v=1; a=rsa-sha256; d=allowed.example; s=k;\r\n bh=x; b=y\r\n";

        assertThat(policy.checkRaw(raw(signed), d -> false)).isEmpty();
        String ownQueueDomain = OWN + "DKIM-Signature: v=1; a=rsa-sha256; d=queue.example; s=app; bh=x; b=y\r\n";
        assertThat(policy.checkRaw(raw(ownQueueDomain), "queue.example"::equals)).as("a domain the sender may use").isEmpty();
    }

    @Test
    void serverWrittenResentArcAndASignatureOfAQueueDomainTheSenderMayNotUseAreRefusedByName() throws Exception {
        String forged = OWN + "Resent-From: ceo@victim.example\r\nARC-Seal: i=1; a=rsa-sha256; d=victim.example\r\n"
                + "Authentication-Results: mx.victim.example; dkim=pass\r\nReturn-Path: <ceo@victim.example>\r\n"
                + "Delivered-To: ceo@victim.example\r\n"
                + "DKIM-Signature: v=1; a=rsa-sha256;\r\n d = Queue.Example ; s=s1; bh=x; b=y\r\n";

        List<FieldError> errors = policy.checkRaw(raw(forged), "allowed.example"::equals);

        assertThat(errors).extracting(FieldError::getField).containsExactly("message.Resent-From", "message.ARC-Seal",
                "message.Authentication-Results", "message.Return-Path", "message.Delivered-To", "message.DKIM-Signature");
        assertThat(errors.get(5).getMessage()).contains("d=queue.example");
    }

    @Test
    void theSigningDomainIsTheDTagWhateverTheWhiteSpace() {
        assertThat(HeaderPolicy.signingDomain("v=1; d=\r\n\tA.Example ;s=x")).isEqualTo("a.example");
        assertThat(HeaderPolicy.signingDomain("v=1; s=x; bh=d=b.example")).isNull();
    }

    private static RawMessage raw(String header) throws Exception {
        return RawMessage.parse((header + "\r\nbody\r\n").getBytes(StandardCharsets.US_ASCII), HeaderLimits.DEFAULTS);
    }
}
