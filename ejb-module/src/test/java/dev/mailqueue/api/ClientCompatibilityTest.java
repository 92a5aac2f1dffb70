package dev.mailqueue.api;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

/**
 * The remote EJB's arguments and answers as the client jar of 1.0.0 (main 7a19291) writes and reads them: the
 * resources hold a {@link MailRequest} (one with content, one naming a template) and a {@link RawMail} serialized by
 * that jar, and {@link MailView}s and an {@link EnqueueReceipt} serialized by its classes (Java serialization,
 * base64); the classes of this build must read them field for field. A change that drops a field, changes a field's
 * type or the {@code serialVersionUID}, or turns one of these classes into a record, fails here: the other side would
 * then need a new client jar, and the change must be versioned rather than slipped in. Liberty's ORB marshals the same fields (RMI-IIOP value
 * types are described by the class's serializable fields and its {@code serialVersionUID}), so this is the nearest
 * check that needs no second server.
 */
class ClientCompatibilityTest {

    @Test
    void aMailRequestOfTodaysClientJarReadsWhole() throws Exception {
        List<Object> written = read("mail-request-1.0.b64", 2);
        MailRequest full = (MailRequest) written.get(0);

        assertThat(full.getFrom()).isEqualTo("orders@shop.example");
        assertThat(full.getFromName()).isEqualTo("Shop, Orders");
        assertThat(full.getReplyTo()).isEqualTo("\"Help desk\" <help@shop.example>");
        assertThat(full.getTo()).containsExactly("customer@example.com", "Zoë <zoe@bücher.example>");
        assertThat(full.getCc()).containsExactly("carol@example.com");
        assertThat(full.getBcc()).containsExactly("audit@shop.example");
        assertThat(full.getSubject()).isEqualTo("Order 42 confirmed");
        assertThat(full.getText()).isEqualTo("Thank you.");
        assertThat(full.getHtml()).isEqualTo("<p>Thank you.</p>");
        assertThat(full.getPriority()).isEqualTo(3);
        assertThat(full.getNotBefore()).isEqualTo(Instant.parse("2026-12-01T08:00:00Z"));
        assertThat(full.getExpiresAt()).isEqualTo(Instant.parse("2026-12-02T08:00:00Z"));
        assertThat(full.isPerRecipient()).isTrue();
        assertThat(full.getAccount()).isEqualTo("primary");
        assertThat(full.getUnsubscribeList()).isEqualTo("news");
        assertThat(full.getReference()).isEqualTo("order-42");
        assertThat(full.getCampaign()).isEqualTo("winter");
        assertThat(full.getTags()).containsExactly("order", "shop:eu");
        assertThat(full.getHeaders()).containsExactly(entry("X-Order", "42"));
        assertThat(full.getAttachments()).singleElement().satisfies(a -> {
            assertThat(a.getFilename()).isEqualTo("receipt.txt");
            assertThat(a.getContentType()).isEqualTo("text/plain");
            assertThat(new String(a.getContent(), StandardCharsets.UTF_8)).isEqualTo("42 EUR");
        });
        assertThat(full.getTemplate()).isNull();

        MailRequest template = (MailRequest) written.get(1);
        assertThat(template.getFrom()).isEqualTo("news@shop.example");
        assertThat(template.getTo()).containsExactly("bob@example.com");
        assertThat(template.getTemplate().getName()).isEqualTo("welcome");
        assertThat(template.getTemplate().getLocale()).isEqualTo("de-CH");
        assertThat(template.getTemplate().getVariables()).containsExactly(entry("name", "Bob"));
        assertThat(template.getSubject()).isNull();
        assertThat(template.getPriority()).isNull();
        assertThat(template.getNotBefore()).isNull();
        assertThat(template.getAttachments()).isEmpty();
    }

    @Test
    void aRawMailOfTodaysClientJarReadsWhole() throws Exception {
        RawMail raw = (RawMail) read("raw-mail-1.0.b64", 1).get(0);

        assertThat(new String(raw.getMessage(), StandardCharsets.US_ASCII)).isEqualTo("Subject: hi\r\n\r\nbody\r\n");
        assertThat(raw.getEnvelopeFrom()).isEqualTo("bounces@shop.example");
        assertThat(raw.getEnvelopeTo()).containsExactly("bob@example.com", "carol@example.com");
        assertThat(raw.getPriority()).isEqualTo(7);
        assertThat(raw.getNotBefore()).isEqualTo(Instant.parse("2026-12-01T08:00:00Z"));
        assertThat(raw.getExpiresAt()).isEqualTo(Instant.parse("2026-12-03T08:00:00Z"));
        assertThat(raw.getAccount()).isEqualTo("primary");
        assertThat(raw.getCampaign()).isEqualTo("winter");
        assertThat(raw.getReference()).isEqualTo("raw-1");
        assertThat(raw.getTags()).containsExactly("raw");
        assertThat(raw.getUnsubscribeList()).isEqualTo("news");
    }

    @Test
    void theViewsOfTodaysClientJarReadWholeAndAMailOutOfTheQueueShowsNoCountOfAttemptsLeft() throws Exception {
        List<Object> written = read("mail-view-1.0.b64", 3);
        MailView queued = (MailView) written.get(0);
        MailView sent = (MailView) written.get(1);
        EnqueueReceipt receipt = (EnqueueReceipt) written.get(2);

        assertThat(queued.getStatus()).isEqualTo(MailStatus.QUEUED);
        assertThat(queued.getAttemptsRemaining()).isEqualTo(3);
        assertThat(queued.getNotBefore()).isEqualTo(Instant.parse("2026-11-29T10:00:00Z"));
        assertThat(sent.getAttemptsRemaining()).as("1.0 wrote 0 for a sent mail").isNull();
        assertThat(sent.getId()).isEqualTo(42);
        assertThat(sent.getCc()).containsExactly("carol@example.com");
        assertThat(sent.getAddresses()).singleElement().satisfies(a -> {
            assertThat(a.getField()).isEqualTo("to");
            assertThat(a.getName()).isEqualTo("Customer");
        });
        assertThat(sent.getSentAt()).isEqualTo(Instant.parse("2026-11-28T10:00:06Z"));
        assertThat(sent.getTags()).containsExactly("order");
        assertThat(sent.getEnqueuedBy()).isEqualTo("sender");
        assertThat(sent.getAttempts()).singleElement().satisfies(a -> {
            assertThat(a.getSmtpReplyCode()).isEqualTo(250);
            assertThat(a.getSmtpReplyText()).isEqualTo("250 OK");
            assertThat(a.getEnhancedStatus()).isEqualTo("2.0.0");
            assertThat(a.getFinishedAt()).isEqualTo(Instant.parse("2026-11-28T10:00:06Z"));
        });
        assertThat(sent.getRecipients()).singleElement().satisfies(r -> {
            assertThat(r.getAddress()).isEqualTo("carol@example.com");
            assertThat(r.getReplyCode()).isEqualTo(250);
        });
        assertThat(sent.getAttachments()).singleElement().satisfies(a -> assertThat(a.getSizeBytes()).isEqualTo(6));
        assertThat(sent.getHeaders()).containsExactly(entry("X-Order", "42"));
        assertThat(receipt.getId()).isEqualTo(43);
        assertThat(receipt.isDuplicate()).isTrue();
        assertThat(receipt.getCopies()).extracting(EnqueueReceipt::getId).containsExactly(44L);
        assertThat(receipt.getSuppressed()).containsExactly("gone@example.com");
    }

    /** @return the first {@code count} objects of the resource's stream, in order */
    private static List<Object> read(String resource, int count) throws IOException, ClassNotFoundException {
        byte[] text;
        try (InputStream in = ClientCompatibilityTest.class.getResourceAsStream(resource)) {
            assertThat(in).as(resource).isNotNull();
            text = in.readAllBytes();
        }
        List<Object> objects = new ArrayList<>();
        ByteArrayInputStream bytes = new ByteArrayInputStream(Base64.getMimeDecoder().decode(text));
        try (ObjectInputStream in = new ObjectInputStream(bytes)) {
            for (int i = 0; i < count; i++) {
                objects.add(in.readObject());
            }
        }
        return objects;
    }
}
