package dev.mailqueue.mime.control;

/**
 * A raw message's header section breaks the grammar of {@link HeaderSection} or one of its {@link HeaderLimits}.
 * The message names the line (counted from 1) and the rule, in words a sender can act on.
 */
public class MalformedHeaderException extends Exception {

    private static final long serialVersionUID = 1L;

    /** @param reason what is wrong and where, e.g. {@code line 3 holds a CR that is not followed by LF} */
    public MalformedHeaderException(String reason) {
        super(reason);
    }
}
