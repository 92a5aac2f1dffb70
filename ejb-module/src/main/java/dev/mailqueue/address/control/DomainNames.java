package dev.mailqueue.address.control;

import com.ibm.icu.text.IDNA;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Set;

/**
 * Converts internationalized domain names between their Unicode and ASCII forms with ICU4J's UTS #46
 * implementation in its non-transitional mode, which follows IDNA2008 (RFC 5891/5892) for registration and
 * lookup: {@code ß} and {@code ς} stay themselves (IDNA2003, as in {@code java.net.IDN}, maps them to
 * {@code ss} and {@code σ}, another domain), STD3 rules (letters, digits, hyphen), no hyphen at the start or
 * end of a label, bidi (RFC 5893) and joiner (RFC 5892 Appendix A) rules checked. A domain that breaks any
 * rule is refused rather than repaired. Thread safe.
 */
public final class DomainNames {

    private static final IDNA UTS46 = IDNA.getUTS46Instance(IDNA.NONTRANSITIONAL_TO_ASCII
            | IDNA.NONTRANSITIONAL_TO_UNICODE | IDNA.USE_STD3_RULES | IDNA.CHECK_BIDI | IDNA.CHECK_CONTEXTJ);

    private DomainNames() {
    }

    /**
     * @param domain a domain in Unicode, e.g. {@code bücher.example}
     * @return its ASCII form, e.g. {@code xn--bcher-kva.example}, in lower case
     * @throws IllegalArgumentException when it is not a valid IDNA domain; the message names the UTS #46 errors
     */
    public static String toAscii(String domain) {
        StringBuilder out = new StringBuilder();
        IDNA.Info info = new IDNA.Info();
        UTS46.nameToASCII(domain, out, info);
        if (info.hasErrors()) {
            throw new IllegalArgumentException(describe(info.getErrors()));
        }
        return out.toString();
    }

    /**
     * @param domain an ASCII domain, possibly with A-labels ({@code xn--...})
     * @return it with each A-label as its U-label, the other labels unchanged
     * @throws IllegalArgumentException when an A-label does not decode to a valid U-label
     */
    public static String toUnicode(String domain) {
        if (!domain.toLowerCase(Locale.ROOT).contains("xn--")) {
            return domain;
        }
        StringBuilder out = new StringBuilder();
        IDNA.Info info = new IDNA.Info();
        UTS46.nameToUnicode(domain, out, info);
        if (info.hasErrors()) {
            throw new IllegalArgumentException(describe(info.getErrors()));
        }
        return out.toString();
    }

    /** @return true when the text is ASCII only */
    static boolean isAscii(String text) {
        return StandardCharsets.US_ASCII.newEncoder().canEncode(text);
    }

    private static String describe(Set<IDNA.Error> errors) {
        return errors.stream().map(e -> e.name().toLowerCase(Locale.ROOT).replace('_', ' ')).sorted()
                .reduce((a, b) -> a + ", " + b).orElse("invalid");
    }
}
