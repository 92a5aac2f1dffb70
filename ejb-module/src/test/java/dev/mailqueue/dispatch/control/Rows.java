package dev.mailqueue.dispatch.control;

import dev.mailqueue.api.MailStatus;
import dev.mailqueue.mail.entity.MailMessage;

import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** Builds mail rows as enqueue leaves them (QUEUED, due, 5 attempts); tests change what they care about. */
public final class Rows {

    private Rows() {
    }

    /**
     * @param subject   tells the rows apart in assertions
     * @param priority  0..9
     * @param createdAt UTC; also the due time
     * @return a new QUEUED row, due from {@code createdAt}, with 5 attempts
     */
    public static MailMessage queued(String subject, int priority, LocalDateTime createdAt) {
        MailMessage mail = new MailMessage();
        mail.setMessageId("<" + UUID.randomUUID() + "@example.com>");
        mail.setStatus(MailStatus.QUEUED);
        mail.setPriority(priority);
        mail.setCreatedAt(createdAt);
        mail.setNotBefore(createdAt);
        mail.setAttemptsRemaining(5);
        mail.setFromAddress("sender@example.com");
        mail.setFromName("Sender");
        mail.setTo(new ArrayList<>(List.of("to@example.com")));
        mail.setSubject(subject);
        mail.setTextBody("Hello");
        return mail;
    }

    /** @return a QUEUED row with priority 4 due from {@code createdAt} */
    public static MailMessage queued(String subject, LocalDateTime createdAt) {
        return queued(subject, 4, createdAt);
    }
}
