package dev.mailqueue.dispatch.control;

/** The text of a failure as an attempt's error shows it. */
final class FailureText {

    /** How many causes are named, the failure itself included. */
    static final int DEPTH = 5;

    private FailureText() {
    }

    /**
     * @param failure a failure
     * @return it with up to {@link #DEPTH} causes, e.g.
     *         "MailConnectException: Couldn't connect ... &lt;- ConnectException: refused"
     */
    static String describe(Throwable failure) {
        StringBuilder text = new StringBuilder();
        Throwable t = failure;
        for (int depth = 0; t != null && depth < DEPTH; depth++) {
            if (!text.isEmpty()) {
                text.append(" <- ");
            }
            text.append(t.getClass().getSimpleName()).append(": ").append(t.getMessage());
            t = t.getCause() == t ? null : t.getCause();
        }
        return text.toString();
    }
}
