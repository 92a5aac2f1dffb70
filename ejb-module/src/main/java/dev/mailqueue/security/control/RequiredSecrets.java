package dev.mailqueue.security.control;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.function.Function;
import java.util.Optional;

/**
 * The secrets a server must be given, because none of them has a default in the shipped configuration
 * (a default password is one every copy of the software shares):
 * <ul>
 *   <li>{@code mailqueue.keystore.password}, the HTTPS key store's, always;</li>
 *   <li>{@code mailqueue.db.password}, the database user's, unless the database is embedded Derby;
 *       an empty value, set on purpose, is accepted (e.g. a local MariaDB root without one);</li>
 *   <li>{@code mailqueue.smtp.password} when {@code mailqueue.smtp.auth} is true: the shipped value
 *       {@value #SMTP_PLACEHOLDER} only satisfies Liberty's mail session without authentication.</li>
 * </ul>
 */
public final class RequiredSecrets {

    /** The placeholder SMTP password of server.xml, which Liberty needs while SMTP AUTH is off. */
    public static final String SMTP_PLACEHOLDER = "unused-without-smtp-auth";

    private RequiredSecrets() {
    }

    /**
     * @param defined   whether a configuration property is set by any source (environment, server.env,
     *                  a {@code <variable>}), also when set to the empty string
     * @param value     a property's value, empty when unset or empty
     * @param derby     whether the queue's database is embedded Derby (no password)
     * @return the messages for the secrets that are missing, one per secret, naming the property and its
     *         environment variable; empty when all are there
     */
    public static List<String> missing(Predicate<String> defined, Function<String, Optional<String>> value, boolean derby) {
        List<String> missing = new ArrayList<>();
        if (!defined.test("mailqueue.keystore.password")) {
            missing.add(message("mailqueue.keystore.password", "the password of the HTTPS key store"));
        }
        if (!derby && !defined.test("mailqueue.db.password")) {
            missing.add(message("mailqueue.db.password", "the database user's password"));
        }
        boolean smtpAuth = value.apply("mailqueue.smtp.auth").map(Boolean::parseBoolean).orElse(false);
        if (smtpAuth && value.apply("mailqueue.smtp.password").filter(p -> !p.equals(SMTP_PLACEHOLDER)).isEmpty()) {
            missing.add(message("mailqueue.smtp.password", "the SMTP password (mailqueue.smtp.auth is true)"));
        }
        return missing;
    }

    private static String message(String property, String what) {
        return property + " (" + what + ") is not set and has no default: set the environment variable "
                + property.toUpperCase(java.util.Locale.ROOT).replace('.', '_').replace('-', '_')
                + " or a <variable name=\"" + property + "\" value=\"...\"/> in configDropins/overrides";
    }
}
