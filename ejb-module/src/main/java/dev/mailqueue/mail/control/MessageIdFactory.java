package dev.mailqueue.mail.control;

import dev.mailqueue.settings.control.Settings;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.annotation.PostConstruct;

import java.util.Optional;
import java.util.UUID;

/**
 * Makes the RFC 5322 §3.6.4 Message-ID of a mail when it is enqueued: {@code <random-uuid@domain>}.
 * The domain is {@code mailqueue.message-id.domain} when configured, else the sender's domain, else
 * (when that would make the id longer than its 255-character column) {@code mailqueue.invalid}
 * (RFC 2606 reserves .invalid). The id is stored with the mail and used on every attempt, so a
 * receiver can recognise a resend.
 */
@ApplicationScoped
public class MessageIdFactory {

    /** The message_id column's length. */
    static final int MAX_LENGTH = 255;

    /** Used when the sender's domain would make the id too long. */
    static final String FALLBACK_DOMAIN = "mailqueue.invalid";

    /** {@code mailqueue.message-id.domain}, stripped; empty when it is not set or blank. */
    Optional<String> domain = Optional.empty();

    @PostConstruct
    void read() {
        domain = Settings.fromConfig(MessageIdFactory.class).optional("mailqueue.message-id.domain");
    }

    /**
     * @param fromAddress the sender's bare address, already validated
     * @return a new Message-ID with angle brackets, at most 255 characters
     */
    public String create(String fromAddress) {
        String right = domain.filter(d -> !d.isBlank())
                .orElseGet(() -> fromAddress.substring(fromAddress.lastIndexOf('@') + 1));
        String id = "<" + UUID.randomUUID() + "@" + right + ">";
        return id.length() <= MAX_LENGTH ? id : "<" + UUID.randomUUID() + "@" + FALLBACK_DOMAIN + ">";
    }
}
