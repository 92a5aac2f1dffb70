package dev.mailqueue.dkim.control;

import dev.mailqueue.settings.control.Settings;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import org.apache.james.jdkim.DKIMSigner;

import java.io.IOException;
import java.net.IDN;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.interfaces.RSAPrivateCrtKey;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Logger;
import java.util.regex.Pattern;

/**
 * The DKIM keys this installation signs with, one per sender domain, read once at start from these settings:
 * <ul>
 *   <li>{@code mailqueue.dkim.keys}: the keys' names, comma separated (none: nothing is signed);</li>
 *   <li>{@code mailqueue.dkim.<name>.domain}: the domain whose mail it signs, matched against the domain of the
 *       message's From address (so the signature aligns with From for DMARC, RFC 7489 §3.1.1);</li>
 *   <li>{@code mailqueue.dkim.<name>.selector}: the selector its public key is published under;</li>
 *   <li>{@code mailqueue.dkim.<name>.key-file}: a PEM file holding the RSA private key as PKCS#8
 *       ({@code -----BEGIN PRIVATE KEY-----}, what {@code openssl genpkey -algorithm RSA} writes), at least
 *       {@value #MIN_KEY_BITS} bits; the key never enters the database;</li>
 *   <li>or, in place of the key file, {@code mailqueue.dkim.<name>.key-store}: a Java key store file (PKCS#12 by
 *       default, {@code .key-store-type} for another type the JDK reads, such as JKS) with
 *       {@code .key-store-password} (which also opens the key) and {@code .key-alias}, the entry of the RSA
 *       private key (unset: the store's only private key);</li>
 *   <li>{@code mailqueue.dkim.<name>.headers}: the header fields to sign, colon separated; when unset,
 *       {@code mailqueue.dkim.headers};</li>
 *   <li>{@code mailqueue.dkim.<name>.sign-signed}: {@code true} to sign raw MIME that carries a signature of the
 *       domain already as well (a second signature, during a key rotation, say); unset: such mail is sent as it
 *       came.</li>
 * </ul>
 * A setting that is missing or malformed stops the application at start with an {@link IllegalStateException}
 * naming it, as other settings do. A key file that cannot be read (missing, not PEM, not an RSA key, too short) does
 * not: it is a {@link #problems() problem} that readiness reports, and mail of its domain is not sent unsigned but
 * waits (its attempts fail as temporary) until the file is fixed and the server restarted.
 */
@ApplicationScoped
public class DkimKeys {

    private static final Logger LOG = Logger.getLogger(DkimKeys.class.getName());

    /** The setting that lists the keys' names. */
    public static final String KEYS = "mailqueue.dkim.keys";
    /** The setting that holds the header fields signed by default. */
    public static final String HEADERS = "mailqueue.dkim.headers";
    /**
     * The shortest RSA key taken, bits: RFC 8301 §3.2 has verifiers ignore signatures of shorter keys (and
     * signers should use 2,048).
     */
    public static final int MIN_KEY_BITS = 1024;

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");
    /** A selector: DNS labels joined by dots (RFC 6376 §3.1, sub-domain of RFC 5321). */
    private static final Pattern SELECTOR = Pattern.compile("[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
            + "(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*");
    /** A header field name (RFC 5322 §3.6.8: printable ASCII but colon). */
    private static final Pattern FIELD_NAME = Pattern.compile("[!-9;-~]+");

    /** One configured key: read, or the reason it could not be. */
    public record Entry(String name, String domain, String selector, String keySource, DkimKey key, String problem,
                        boolean signSigned) {

        /** @return where its public key is published: {@code selector._domainkey.domain} (RFC 6376 §3.6.2.1) */
        public String dnsName() {
            return selector + "._domainkey." + domain;
        }
    }

    private Map<String, Entry> byDomain = Map.of();

    @PostConstruct
    void read() {
        byDomain = read(Settings.fromConfig(DkimKeys.class));
    }

    /** Reads the keys when the application starts, so that a bad setting stops it there. */
    void atStart(@Observes @Initialized(ApplicationScoped.class) Object started) {
        for (Entry entry : byDomain.values()) {
            if (entry.problem() != null) {
                LOG.severe(() -> "DKIM key " + entry.name() + " for " + entry.domain() + ": " + entry.problem()
                        + "; its domain's mail waits until it can be read");
            }
        }
    }

    /**
     * @param settings the settings to read
     * @return the keys they configure
     * @throws IllegalStateException naming the setting when one is missing or malformed, or two keys name the
     *                               same domain
     */
    public static DkimKeys of(Settings settings) {
        DkimKeys keys = new DkimKeys();
        keys.byDomain = read(settings);
        return keys;
    }

    private static Map<String, Entry> read(Settings settings) {
        Map<String, Entry> entries = new LinkedHashMap<>();
        for (String name : settings.list(KEYS)) {
            if (!NAME.matcher(name).matches()) {
                throw new IllegalStateException(KEYS + ": " + name + " is not a key name (A-Z a-z 0-9 _ -, 1 to 64 characters)");
            }
            String prefix = "mailqueue.dkim." + name + ".";
            String domain = domain(prefix + "domain", settings.text(prefix + "domain"));
            String selector = settings.text(prefix + "selector");
            if (!SELECTOR.matcher(selector).matches()) {
                throw new IllegalStateException(prefix + "selector: " + selector + " is not a selector (DNS labels"
                        + " joined by dots, RFC 6376 3.1)");
            }
            Optional<String> keyFile = settings.optional(prefix + "key-file");
            Optional<String> keyStore = settings.optional(prefix + "key-store");
            if (keyFile.isPresent() == keyStore.isPresent()) {
                throw new IllegalStateException(prefix + "key-file or " + prefix + "key-store: set one of them, the"
                        + " PEM file or the key store that holds the key");
            }
            String headerSetting = settings.optional(prefix + "headers").isPresent() ? prefix + "headers" : HEADERS;
            List<String> headers = headers(headerSetting, settings.text(headerSetting));
            String source = keyFile.orElseGet(keyStore::get);
            String setting = prefix + (keyFile.isPresent() ? "key-file" : "key-store");
            DkimKey key = null;
            String problem = null;
            try {
                RSAPrivateCrtKey privateKey = keyFile.isPresent() ? privateKey(Path.of(keyFile.get()))
                        : storedKey(Path.of(keyStore.get()), settings.optional(prefix + "key-store-type").orElse("PKCS12"),
                        settings.optional(prefix + "key-store-password").orElse("").toCharArray(),
                        settings.optional(prefix + "key-alias").orElse(null));
                key = new DkimKey(name, domain, selector, headers, privateKey);
            } catch (IOException | GeneralSecurityException | IllegalArgumentException e) {
                problem = "cannot read " + source + " (" + setting + "): " + e.getMessage();
            }
            boolean signSigned = Boolean.parseBoolean(settings.optional(prefix + "sign-signed").orElse("false"));
            Entry previous = entries.put(domain, new Entry(name, domain, selector, source, key, problem, signSigned));
            if (previous != null) {
                throw new IllegalStateException(prefix + "domain: " + domain + " has a key already, "
                        + previous.name() + "; one key per domain");
            }
        }
        return Map.copyOf(entries);
    }

    private static String domain(String setting, String value) {
        try {
            String ascii = IDN.toASCII(value, IDN.USE_STD3_ASCII_RULES).toLowerCase(Locale.ROOT);
            if (ascii.isEmpty() || !ascii.contains(".") || ascii.length() > 253) {
                throw new IllegalArgumentException("not a domain name");
            }
            return ascii;
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(setting + ": " + value + " is not a domain name");
        }
    }

    private static List<String> headers(String setting, String value) {
        List<String> names = new ArrayList<>();
        for (String field : value.split(":")) {
            String name = field.strip();
            if (!FIELD_NAME.matcher(name).matches()) {
                throw new IllegalStateException(setting + ": " + value + " holds \"" + name + "\", not a header field name");
            }
            names.add(name);
        }
        if (names.stream().noneMatch("From"::equalsIgnoreCase)) {
            throw new IllegalStateException(setting + ": " + value + " must sign From (RFC 6376 5.4)");
        }
        return List.copyOf(names);
    }

    /**
     * @param file a PEM file with one PKCS#8 private key
     * @return the RSA key it holds
     * @throws IOException              when it cannot be read
     * @throws GeneralSecurityException when its content is not an RSA key
     * @throws IllegalArgumentException when it is not PEM, or the key is shorter than {@value #MIN_KEY_BITS} bits
     */
    static RSAPrivateCrtKey privateKey(Path file) throws IOException, GeneralSecurityException {
        String pem = Files.readString(file, StandardCharsets.US_ASCII);
        int begin = pem.indexOf("-----BEGIN PRIVATE KEY-----");
        int end = pem.indexOf("-----END PRIVATE KEY-----");
        if (begin < 0 || end < begin) {
            throw new IllegalArgumentException("not a PEM file with a PKCS#8 private key (-----BEGIN PRIVATE KEY-----)");
        }
        String base64 = pem.substring(begin + 27, end).replaceAll("\\s", "");
        return rsa(DKIMSigner.getPrivateKey(base64));
    }

    /**
     * @param file     a key store file
     * @param type     its type, as {@link KeyStore#getInstance(String)} takes it (PKCS12, JKS)
     * @param password the store's password, which also opens the key
     * @param alias    the key's entry, or null for the store's only private key
     * @return the RSA key it holds
     * @throws IOException              when it cannot be read, or the password is wrong
     * @throws GeneralSecurityException when the store or its key cannot be opened
     * @throws IllegalArgumentException when there is no such entry (or none, or several without an alias), or the key
     *                                  is not RSA or shorter than {@value #MIN_KEY_BITS} bits
     */
    static RSAPrivateCrtKey storedKey(Path file, String type, char[] password, String alias)
            throws IOException, GeneralSecurityException {
        KeyStore store = KeyStore.getInstance(type);
        try (var in = Files.newInputStream(file)) {
            store.load(in, password);
        }
        String entry = alias;
        if (entry == null) {
            List<String> keys = new ArrayList<>();
            for (String a : java.util.Collections.list(store.aliases())) {
                if (store.isKeyEntry(a)) {
                    keys.add(a);
                }
            }
            if (keys.size() != 1) {
                throw new IllegalArgumentException("it holds " + keys.size() + " keys " + keys
                        + ": name one with key-alias");
            }
            entry = keys.get(0);
        }
        if (!store.isKeyEntry(entry)) {
            throw new IllegalArgumentException("it holds no key named " + entry);
        }
        return rsa(store.getKey(entry, password));
    }

    private static RSAPrivateCrtKey rsa(java.security.Key key) {
        if (!(key instanceof RSAPrivateCrtKey rsa)) {
            throw new IllegalArgumentException("not an RSA private key with its public exponent (PKCS#8)");
        }
        if (rsa.getModulus().bitLength() < MIN_KEY_BITS) {
            throw new IllegalArgumentException("an RSA key of " + rsa.getModulus().bitLength() + " bits; at least "
                    + MIN_KEY_BITS + " (RFC 8301 3.2), better 2048");
        }
        return rsa;
    }

    /**
     * @param domain a From address's domain, A-labels
     * @return the key configured for it: read, or with the reason it could not be; empty when none signs it
     */
    public Optional<Entry> forDomain(String domain) {
        return byDomain.isEmpty() || domain == null ? Optional.empty()
                : Optional.ofNullable(byDomain.get(domain.toLowerCase(Locale.ROOT)));
    }

    /** @return true when no key is configured: nothing is signed */
    public boolean none() {
        return byDomain.isEmpty();
    }

    /** @return every configured key, ordered by domain */
    public List<Entry> all() {
        return byDomain.values().stream().sorted(java.util.Comparator.comparing(Entry::domain)).toList();
    }

    /** @return for each key that could not be read, why; empty when all could */
    public List<String> problems() {
        return all().stream().filter(e -> e.problem() != null)
                .map(e -> "DKIM key " + e.name() + " for " + e.domain() + ": " + e.problem()).toList();
    }
}
