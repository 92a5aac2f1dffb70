package dev.mailqueue.login.control;

/**
 * No access token could be had: the authorization server refused the grant (its RFC 6749 §5.2 error code and
 * description, HTTP status), could not be reached, or answered something that is no token response. The message
 * names the account's grant and token endpoint and never carries a secret or a token.
 */
public class TokenException extends Exception {

    private static final long serialVersionUID = 1L;

    /** @param message why, naming the grant and the token endpoint */
    public TokenException(String message) {
        super(message);
    }

    /**
     * @param message why, naming the grant and the token endpoint
     * @param cause   the transport failure
     */
    public TokenException(String message, Throwable cause) {
        super(message, cause);
    }
}
