package dev.mailqueue.api;

import java.io.Serializable;

/**
 * One address of a mail as the queue keeps it, in both forms of its domain: {@code address} with the
 * domain's A-labels (what goes into the SMTP envelope and the header fields, e.g.
 * {@code pat@xn--bcher-kva.example}) and {@code unicodeAddress} with its U-labels
 * ({@code pat@bücher.example}); the two are equal for a domain without IDNA labels. A local part is shown
 * as given, in UTF-8 for an SMTPUTF8 address ({@code smtpUtf8} true).
 */
public class AddressView implements Serializable {

    private static final long serialVersionUID = 1L;

    private String field;
    private String name;
    private String address;
    private String unicodeAddress;
    private boolean smtpUtf8;

    /** An empty view, for JSON-B and IIOP. */
    public AddressView() {
    }

    /**
     * @param field          {@code from}, {@code replyTo}, {@code to}, {@code cc} or {@code bcc}
     * @param name           the display name, or null
     * @param address        the address with an ASCII domain
     * @param unicodeAddress the address with a Unicode domain
     * @param smtpUtf8       whether the local part is not ASCII (needs an SMTPUTF8 server, RFC 6531)
     */
    public AddressView(String field, String name, String address, String unicodeAddress, boolean smtpUtf8) {
        this.field = field;
        this.name = name;
        this.address = address;
        this.unicodeAddress = unicodeAddress;
        this.smtpUtf8 = smtpUtf8;
    }

    /** @return {@code from}, {@code replyTo}, {@code to}, {@code cc} or {@code bcc} */
    public String getField() {
        return field;
    }

    public void setField(String field) {
        this.field = field;
    }

    /** @return the display name, or null */
    public String getName() {
        return name;
    }

    public void setName(String name) {
        this.name = name;
    }

    /** @return the address with its domain in ASCII (A-labels) */
    public String getAddress() {
        return address;
    }

    public void setAddress(String address) {
        this.address = address;
    }

    /** @return the address with its domain in Unicode (U-labels) */
    public String getUnicodeAddress() {
        return unicodeAddress;
    }

    public void setUnicodeAddress(String unicodeAddress) {
        this.unicodeAddress = unicodeAddress;
    }

    /** @return true when the local part is not ASCII and the address needs an SMTPUTF8 server */
    public boolean isSmtpUtf8() {
        return smtpUtf8;
    }

    public void setSmtpUtf8(boolean smtpUtf8) {
        this.smtpUtf8 = smtpUtf8;
    }
}
