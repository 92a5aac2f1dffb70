package dev.mailqueue.account.control;

import java.util.Locale;

/**
 * How an account hands its mail on: the setting {@code mailqueue.account.<name>.relay}.
 */
public enum RelayKind {
    /** SMTP through the account's container mail session {@code mail/<name>} (the default). */
    SMTP,
    /**
     * Amazon SES v2 {@code SendEmail} with raw content over HTTPS, for hosts whose outbound SMTP ports are closed;
     * no mail session (see {@code dev.mailqueue.ses.control.SesSettings}).
     */
    SES,
    /**
     * Microsoft Graph {@code sendMail} with the MIME message over HTTPS and an OAuth2 token of the account's login;
     * no mail session (see {@code dev.mailqueue.graph.control.GraphSettings}).
     */
    GRAPH;

    /** @return the setting's value for this kind: {@code smtp}, {@code ses} or {@code graph} */
    public String value() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * @param key   the setting, named in the error
     * @param value its value, {@code smtp}, {@code ses} or {@code graph}; null or empty means {@code smtp}
     * @return the kind
     * @throws IllegalStateException naming the setting for any other value
     */
    static RelayKind parse(String key, String value) {
        if (value == null || value.isBlank()) {
            return SMTP;
        }
        for (RelayKind kind : values()) {
            if (kind.value().equals(value.strip())) {
                return kind;
            }
        }
        throw new IllegalStateException(key + ": '" + value + "' is none of smtp, ses, graph");
    }
}
