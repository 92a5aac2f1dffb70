package dev.mailqueue.login.control;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;

/** Reads the PEM files of an OAuth2 client's key and certificate with the JDK's own parsers. */
final class KeyFiles {

    /** Largest key or certificate file read: a 16,384-bit RSA key in PEM is under 13 KB. */
    static final int MAX_BYTES = 65_536;

    private KeyFiles() {
    }

    /**
     * @param file a PKCS#8 PEM file ({@code -----BEGIN PRIVATE KEY-----}) of an RSA or EC key
     * @return the key
     * @throws IllegalArgumentException saying why the file cannot be read or holds no such key (never its content)
     */
    static PrivateKey privateKey(Path file) {
        String pem = text(file);
        int begin = pem.indexOf("-----BEGIN PRIVATE KEY-----");
        int end = pem.indexOf("-----END PRIVATE KEY-----");
        if (begin < 0 || end < begin) {
            throw new IllegalArgumentException(file + " holds no PKCS#8 PEM key (-----BEGIN PRIVATE KEY-----); convert a"
                    + " PKCS#1 key with: openssl pkcs8 -topk8 -nocrypt -in old.pem -out new.pem");
        }
        byte[] der;
        try {
            der = Base64.getMimeDecoder().decode(pem.substring(begin + 27, end));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ": the PEM body is not base64", e);
        }
        for (String algorithm : new String[]{"RSA", "EC"}) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
            } catch (GeneralSecurityException e) {
                // try the next algorithm
            }
        }
        throw new IllegalArgumentException(file + " holds neither an RSA nor an EC private key");
    }

    /**
     * @param file a PEM or DER file of an X.509 certificate
     * @return the SHA-256 digest of its DER encoding (the {@code x5t#S256} thumbprint, RFC 7515 §4.1.8)
     * @throws IllegalArgumentException saying why the file cannot be read or holds no certificate
     */
    static byte[] thumbprint(Path file) {
        text(file);
        try (InputStream in = Files.newInputStream(file)) {
            return MessageDigest.getInstance("SHA-256")
                    .digest(CertificateFactory.getInstance("X.509").generateCertificate(in).getEncoded());
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException(file + " holds no X.509 certificate: " + e.getMessage(), e);
        }
    }

    private static String text(Path file) {
        try {
            if (Files.size(file) > MAX_BYTES) {
                throw new IllegalArgumentException(file + " is larger than " + MAX_BYTES + " bytes");
            }
            return Files.readString(file, java.nio.charset.StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            throw new IllegalArgumentException(file + " cannot be read: " + e, e);
        }
    }
}
