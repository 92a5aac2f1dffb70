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
                "mailqueue.dkim.shop.key-file", String.valueOf(keyFile)));
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

    /** @return a PKCS#12 key store made by the JDK's keytool, holding one RSA key of {@code bits} under {@code alias} */
    Path keyStore(String alias, int bits) throws Exception {
        Path store = dir.resolve(alias + ".p12");
        Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-keyalg", "RSA", "-keysize", Integer.toString(bits), "-alias", alias, "-dname", "CN=dkim",
                "-validity", "2", "-storetype", "PKCS12", "-keystore", store.toString(), "-storepass", "store-secret")
                .redirectErrorStream(true).start();
        String output = new String(keytool.getInputStream().readAllBytes());
        assertThat(keytool.waitFor()).as(output).isZero();
        return store;
    }

    @Test
    void aKeyIsReadFromAKeyStoreInPlaceOfAPemFile() throws Exception {
        Path store = keyStore("shop-2026", 2048);
        Map<String, String> settings = settings(null);
        settings.remove("mailqueue.dkim.shop.key-file");
        settings.putAll(Map.of("mailqueue.dkim.shop.key-store", store.toString(),
                "mailqueue.dkim.shop.key-store-password", "store-secret"));

        DkimKeys keys = DkimKeys.of(Settings.of(settings));

        assertThat(keys.problems()).isEmpty();
        assertThat(keys.forDomain("xn--bcher-kva.example").orElseThrow().key().bits()).isEqualTo(2048);
        settings.put("mailqueue.dkim.shop.key-alias", "other");
        assertThat(DkimKeys.of(Settings.of(settings)).problems()).singleElement().asString()
                .contains("no key named other").contains("mailqueue.dkim.shop.key-store");
        settings.put("mailqueue.dkim.shop.key-alias", "shop-2026");
        settings.put("mailqueue.dkim.shop.key-store-password", "wrong");
        assertThat(DkimKeys.of(Settings.of(settings)).problems()).singleElement().asString()
                .contains(store.toString());
        settings.put("mailqueue.dkim.shop.key-file", store.toString());
        assertThatThrownBy(() -> DkimKeys.of(Settings.of(settings))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("set one of them");
    }
}
