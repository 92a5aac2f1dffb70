package dev.mailqueue.address.control;

/** Thrown when a text is not a mailbox the queue accepts; the message says why, for the caller to read. */
public class InvalidAddressException extends Exception {

    private static final long serialVersionUID = 1L;

    /** @param reason what is wrong, a sentence fragment such as "has a local part longer than 64 octets" */
    public InvalidAddressException(String reason) {
        super(reason);
    }
}
