package dev.mailqueue.dispatch.control;

import jakarta.mail.MessagingException;

/**
 * An HTTP mail API (Amazon SES) answered a request with an error, given here as the SMTP reply that means the same
 * to the delivery policy ({@link SesRelay#refusal}), so that {@link SmtpReply#of}, {@link FailureClass} and the
 * rate limits treat it as they treat an SMTP server's: e.g. SES's {@code TooManyRequestsException} as
 * {@code 451 4.7.0} (slow down, try again), {@code MessageRejected} as {@code 554 5.6.0} (never again).
 */
public class ApiRefusedException extends MessagingException {

    private static final long serialVersionUID = 1L;

    private final int returnCode;

    /**
     * @param returnCode the SMTP reply code of the same meaning, 400 to 599
     * @param text       the reply text: an RFC 3463 enhanced status code, then the API's error code and message
     */
    public ApiRefusedException(int returnCode, String text) {
        super(returnCode + " " + text);
        this.returnCode = returnCode;
    }

    /** @return the SMTP reply code of the same meaning; read by {@link SmtpReply#of} by name, as on Angus Mail's */
    public int getReturnCode() {
        return returnCode;
    }
}
