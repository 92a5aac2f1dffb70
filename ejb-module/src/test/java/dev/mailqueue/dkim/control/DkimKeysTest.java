package dev.mailqueue.dkim.control;

import dev.mailqueue.settings.control.Settings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPairGenerator;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The DKIM settings: what stops the application at start, and what is a readiness problem instead. */
public class DkimKeysTest {

    @TempDir
    Path dir;

    /**
     * @param dir  where to write it
     * @param bits the RSA key's size
     * @return a PEM file with a new RSA private key as PKCS#8, as {@code openssl genpkey} writes it
     */
    public static Path pem(Path dir, int bits) throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
        generator.initialize(bits);
        String base64 = Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(generator.generateKeyPair().getPrivate().getEncoded());
        Path file = Files.createTempFile(dir, "dkim", ".pem");
        Files.writeString(file, "-----BEGIN PRIVATE KEY-----\n" + base64 + "\n-----END PRIVATE KEY-----\n");
        return file;
    }

    Map<String, String> settings(String keyFile) {
        Map<String, String> settings = new HashMap<>(Map.of(DkimKeys.KEYS, "shop", DkimKeys.HEADERS, "From:Subject",
                "mailqueue.dkim.shop.domain", "Bücher.Example", "mailqueue.dkim.shop.selector", "mq2026",
                "mailqueue.dkim.shop.key-file", keyFile));
        return settings;
    }

    @Test
    void aKeyIsReadWithItsDomainInALabelsAndItsDnsRecord() throws Exception {
        DkimKeys keys = DkimKeys.of(Settings.of(settings(pem(dir, 2048).toString())));

        DkimKey key = keys.forDomain("xn--bcher-kva.example").orElseThrow().key();
        assertThat(key.dnsName()).isEqualTo("mq2026._domainkey.xn--bcher-kva.example");
        assertThat(key.dnsRecord()).startsWith("v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8A");
        assertThat(key.bits()).isEqualTo(2048);
        assertThat(key.headers()).containsExactly("From", "Subject");
        assertThat(keys.problems()).isEmpty();
        assertThat(DkimKeys.of(Settings.of(Map.of())).all()).as("no keys: nothing signed").isEmpty();
    }

    @Test
    void aKeyFileThatCannotBeReadIsAProblemNamingTheSettingNotAStop() throws Exception {
        Path notPem = Files.writeString(dir.resolve("key.txt"), "hello");
        Path shortKey = pem(dir, 768);

        assertThat(DkimKeys.of(Settings.of(settings(dir.resolve("absent.pem").toString()))).problems()).singleElement()
                .asString().contains("absent.pem").contains("mailqueue.dkim.shop.key-file");
        assertThat(DkimKeys.of(Settings.of(settings(notPem.toString()))).problems()).singleElement()
                .asString().contains("not a PEM file");
        assertThat(DkimKeys.of(Settings.of(settings(shortKey.toString()))).problems()).singleElement()
                .asString().contains("768 bits").contains("RFC 8301");
    }

    @Test
    void aMalformedSettingStopsTheApplicationNamingIt() throws Exception {
        String file = pem(dir, 1024).toString();
        Map<String, String> noFrom = settings(file);
        noFrom.put("mailqueue.dkim.shop.headers", "To:Subject");
        Map<String, String> badSelector = settings(file);
        badSelector.put("mailqueue.dkim.shop.selector", "mq 2026");
        Map<String, String> noDomain = settings(file);
        noDomain.remove("mailqueue.dkim.shop.domain");
        Map<String, String> twice = settings(file);
        twice.putAll(Map.of(DkimKeys.KEYS, "shop,again", "mailqueue.dkim.again.domain", "xn--bcher-kva.example",
                "mailqueue.dkim.again.selector", "s2", "mailqueue.dkim.again.key-file", file));

        assertThatThrownBy(() -> DkimKeys.of(Settings.of(noFrom))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("mailqueue.dkim.shop.headers").hasMessageContaining("must sign From");
        assertThatThrownBy(() -> DkimKeys.of(Settings.of(badSelector))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("mailqueue.dkim.shop.selector");
        assertThatThrownBy(() -> DkimKeys.of(Settings.of(noDomain))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("mailqueue.dkim.shop.domain");
        assertThatThrownBy(() -> DkimKeys.of(Settings.of(twice))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("mailqueue.dkim.again.domain").hasMessageContaining("one key per domain");
    }
}
