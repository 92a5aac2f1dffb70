package dev.mailqueue.dispatch.control;

import dev.mailqueue.queue.control.Verdict;

/**
 * A mail's attempt ends before any account is tried, or on an account before anything reaches its server: it cannot
 * be composed, redirected or signed, its account is not configured, or it needs SMTPUTF8 where there is none. The
 * attempt is recorded with {@link #verdict()} and this message as its error.
 */
final class Unsendable extends Exception {
    private static final long serialVersionUID = 1L;

    private final Verdict verdict;
    private final String account;

    /**
     * @param verdict PERMANENT when trying again cannot help, TRANSIENT when it may (e.g. a DKIM key that cannot be
     *                read now)
     * @param reason  the attempt's error text
     * @param account the account the attempt is recorded on; null for none
     */
    Unsendable(Verdict verdict, String reason, String account) {
        super(reason, null, false, false);
        this.verdict = verdict;
        this.account = account;
    }

    /** @return what the attempt makes of the mail */
    Verdict verdict() {
        return verdict;
    }

    /** @return the account the attempt is recorded on, or null */
    String account() {
        return account;
    }
}
