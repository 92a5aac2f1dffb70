package dev.mailqueue.mail.control;

import dev.mailqueue.dispatch.control.QueueDatabase;
import dev.mailqueue.dispatch.control.Rows;
import dev.mailqueue.mail.entity.MailAttachment;
import dev.mailqueue.mail.entity.MailHeader;
import dev.mailqueue.mail.entity.MailMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A mail and its attachments and headers are stored in one transaction on the real schema: all of
 * them, in order, or, when any part fails to insert, none of them.
 */
class MailPartsTest {

    static final LocalDateTime NOW = LocalDateTime.of(2030, 3, 14, 9, 26, 53);

    @RegisterExtension
    static final QueueDatabase db = QueueDatabase.perTestClass();

    @Test
    void aMailIsStoredWithItsPartsInOrder() {
        MailMessage mail = withParts(Rows.queued("parts", NOW), "v");

        db.run(em -> {
            em.persist(mail);
            MailParts.persist(em, List.of(mail));
        });

        MailMessage stored = db.inTransaction(em -> {
            MailMessage found = em.find(MailMessage.class, mail.getId());
            MailParts.load(em, List.of(found));
            return found;
        });
        assertThat(stored.getAttachments()).extracting(MailAttachment::getFilename).containsExactly("a.pdf", "b.txt");
        assertThat(stored.getAttachments().get(1).getContent()).containsExactly(2, 3);
        assertThat(stored.getAttachments().get(1).getSizeBytes()).isEqualTo(2);
        assertThat(stored.getHeaders()).extracting(MailHeader::getName).containsExactly("X-One", "X-Two");
    }

    @Test
    void whenAPartCannotBeStoredNeitherTheMailNorAnyPartIs() {
        MailMessage good = withParts(Rows.queued("good", NOW), "v");
        MailMessage bad = withParts(Rows.queued("bad", NOW), "v".repeat(999)); // the column holds 998

        Throwable failure = catchThrowable(() -> db.run(em -> {
            em.persist(good);
            em.persist(bad);
            MailParts.persist(em, List.of(good, bad));
        }));

        assertThat(failure).isNotNull();
        assertThat(count("MAIL_MESSAGE")).isZero();
        assertThat(count("MAIL_ATTACHMENT")).isZero();
        assertThat(count("MAIL_HEADER")).isZero();
    }

    private static MailMessage withParts(MailMessage mail, String secondHeaderValue) {
        mail.setAttachments(new ArrayList<>(List.of(
                new MailAttachment(0, "a.pdf", "application/pdf", new byte[]{1}),
                new MailAttachment(1, "b.txt", "text/plain", new byte[]{2, 3}))));
        mail.setHeaders(new ArrayList<>(List.of(new MailHeader(0, "X-One", "1"), new MailHeader(1, "X-Two", secondHeaderValue))));
        return mail;
    }

    private static long count(String table) {
        return db.inTransaction(em -> ((Number) em.createNativeQuery("SELECT COUNT(*) FROM " + table).getSingleResult())
                .longValue());
    }
}
