package dev.mailqueue.dkim.control;

import org.apache.james.jdkim.DKIMSigner;
import org.apache.james.jdkim.exceptions.FailException;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.interfaces.RSAPrivateCrtKey;
import java.security.spec.RSAPublicKeySpec;
import java.util.Base64;
import java.util.List;

/**
 * One DKIM signing key: the domain it signs for (the {@code d=} tag, RFC 6376 §3.5), its selector ({@code s=}),
 * the header fields it signs ({@code h=}), and its RSA private key. Signatures are {@code rsa-sha256} with
 * {@code relaxed/relaxed} canonicalization (RFC 6376 §3.4.2 and §3.4.4), which survive the refolding of header
 * fields and trailing white space that relays do.
 *
 * @param name       the key's name in the settings ({@code mailqueue.dkim.<name>.*})
 * @param domain     the signing domain, lower case, A-labels (RFC 5890)
 * @param selector   the selector, a DNS label or several joined by dots
 * @param headers    the header field names to sign, From first (RFC 6376 §5.4: From must be signed)
 * @param privateKey the private key, RSA of at least {@value DkimKeys#MIN_KEY_BITS} bits (RFC 8301 §3.2)
 */
public record DkimKey(String name, String domain, String selector, List<String> headers, RSAPrivateCrtKey privateKey) {

    /** The name of the header field a signature is written in. */
    public static final String FIELD = "DKIM-Signature";

    /** @return the name the public key is published under: {@code selector._domainkey.domain} (RFC 6376 §3.6.2.1) */
    public String dnsName() {
        return new DkimKeys.Entry(name, domain, selector, null, this, null, false).dnsName();
    }

    /**
     * @return the TXT record to publish at {@link #dnsName()}: {@code v=DKIM1; k=rsa; p=} and the public key as
     *         base64 of its DER SubjectPublicKeyInfo (RFC 6376 §3.6.1)
     */
    public String dnsRecord() {
        try {
            var publicKey = KeyFactory.getInstance("RSA")
                    .generatePublic(new RSAPublicKeySpec(privateKey.getModulus(), privateKey.getPublicExponent()));
            return "v=DKIM1; k=rsa; p=" + Base64.getEncoder().encodeToString(publicKey.getEncoded());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("every Java runtime has RSA", e);
        }
    }

    /** @return the key's size, bits */
    public int bits() {
        return privateKey.getModulus().bitLength();
    }

    /**
     * @param message a whole message as it is written to the server after DATA: header fields, an empty line, the
     *                body, lines ending in CRLF
     * @return the {@code DKIM-Signature} field that signs it, {@code "DKIM-Signature: ..."} folded after each tag,
     *         without the final line end, to write before the message's first header field
     * @throws IOException when jDKIM cannot read the message or sign it (a key its runtime refuses); the cause
     *                     names why
     */
    public String signatureField(byte[] message) throws IOException {
        String template = "v=1; a=rsa-sha256; c=relaxed/relaxed; d=" + domain + "; s=" + selector
                + "; h=" + String.join(":", headers) + "; bh=; b=;";
        try {
            String field = new DKIMSigner(template, privateKey).sign(new ByteArrayInputStream(message));
            if (!field.regionMatches(true, 0, FIELD + ":", 0, FIELD.length() + 1)) {
                field = FIELD + ": " + field;
            }
            // jDKIM writes one line of some 500 characters; folded after each tag (RFC 5322 2.2.3 asks for lines of
            // at most 78), which relaxed header canonicalization reads as the same "; " it signed.
            return field.strip().replace("; ", ";\r\n\t");
        } catch (FailException e) {
            throw new IOException("cannot sign with DKIM key " + name + " (" + dnsName() + "): " + e.getMessage(), e);
        }
    }
}
