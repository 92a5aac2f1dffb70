package dev.mailqueue.api;

/**
 * One DKIM signing key as an operator sees it: what to publish in DNS so receivers can verify the queue's
 * signatures, or why the key could not be read. The private key is never shown.
 *
 * @param name      the key's name in the settings ({@code mailqueue.dkim.<name>.*})
 * @param domain    the From domain whose mail it signs, A-labels
 * @param selector  its selector
 * @param dnsName   where to publish the public key: {@code selector._domainkey.domain} (RFC 6376 §3.6.2.1)
 * @param dnsRecord the TXT record to publish there ({@code v=DKIM1; k=rsa; p=...}); null when the key cannot be read
 * @param bits      the RSA key's size, bits; 0 when it cannot be read
 * @param problem   why the key file cannot be read (mail of the domain then waits); null when it was read
 */
public record DkimKeyView(String name, String domain, String selector, String dnsName, String dnsRecord, int bits,
                          String problem) {
}
