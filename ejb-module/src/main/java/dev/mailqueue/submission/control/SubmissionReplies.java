package dev.mailqueue.submission.control;

import org.subethamail.smtp.RejectException;

import java.util.List;

/**
 * The SMTP replies of submission (RFC 5321 §4.2 codes, RFC 3463 enhanced status codes), one line of printable
 * ASCII each: what the queue's API answered, turned into what an SMTP client understands. A refusal that will
 * never change is 5xx; the queue being unable to take a message now is 451, after which the client tries again.
 */
public final class SubmissionReplies {

    /** The longest reason text, characters: a reply line stays well under RFC 5321 §4.5.3.1.5's 512 octets. */
    static final int TEXT_CHARS = 400;

    private SubmissionReplies() {
    }

    /**
     * @param refused what the API refused
     * @return the reply: 550 5.7.1 for a sender the user may not use (403), 552 5.3.4 for a message over the limit
     *         (413), 553 5.1.3 for a recipient and 553 5.1.7 for a sender it refused, 530 5.7.0 for a login it no longer
     *         takes (401), else 554 5.6.0 (the message itself), each with the API's reasons
     */
    public static RejectException refused(QueueApiClient.Refused refused) {
        String reasons = String.join("; ", refused.fields());
        return switch (refused.status()) {
            case 403 -> reject(550, "5.7.1", "not allowed: " + reasons);
            case 413 -> reject(552, "5.3.4", "message too large: " + reasons);
            case 401 -> reject(530, "5.7.0", "authentication is no longer valid; log in again");
            default -> {
                if (names(refused.fields(), "to")) {
                    yield reject(553, "5.1.3", "recipient refused: " + reasons);
                }
                if (names(refused.fields(), "from")) {
                    yield reject(553, "5.1.7", "sender refused: " + reasons);
                }
                yield reject(554, "5.6.0", "message refused: " + reasons);
            }
        };
    }

    /** @return 451 4.3.0: the queue cannot take the message now (its database away, say); the client tries again */
    public static RejectException unavailable() {
        return reject(451, "4.3.0", "the queue cannot take the message now; try again later");
    }

    /**
     * @param code     the reply code
     * @param enhanced the enhanced status code, e.g. {@code 5.1.3}
     * @param text     the reason, any text: made one line of printable ASCII and cut to {@value #TEXT_CHARS}
     * @return the rejection
     */
    public static RejectException reject(int code, String enhanced, String text) {
        StringBuilder clean = new StringBuilder(enhanced).append(' ');
        for (int i = 0; i < text.length() && clean.length() < TEXT_CHARS; i++) {
            char c = text.charAt(i);
            clean.append(c >= 0x20 && c < 0x7f ? c : c == '\t' || c == '\r' || c == '\n' ? ' ' : '?');
        }
        return new RejectException(code, clean.toString());
    }

    private static boolean names(List<String> fields, String field) {
        return fields.stream().anyMatch(f -> f.startsWith(field + ":") || f.startsWith(field + "["));
    }
}
