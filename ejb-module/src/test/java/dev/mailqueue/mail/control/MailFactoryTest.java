package dev.mailqueue.mail.control;

import dev.mailqueue.account.control.AccountSettings;
import dev.mailqueue.account.control.Accounts;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.mail.entity.MailMessage;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** How a validated request becomes a new queued row: defaults, due time, attempts, copies. */
class MailFactoryTest {

    static final LocalDateTime NOW = LocalDateTime.of(2030, 3, 14, 9, 26, 53);

    MailFactory cut;

    @BeforeEach
    void factory() {
        cut = new MailFactory();
        cut.messageIds = new MessageIdFactory();
        cut.messageIds.domain = Optional.empty();
        cut.maxAttempts = 5;
        cut.maxLifetimeMillis = 432_000_000L; // 5 days, the default
        cut.accounts = Accounts.of(AccountSettings.parse(name -> Optional.empty()));
    }

    static MailRequest request() {
        return new MailRequest().from("billing@shop.example.com").fromName("Shop")
                .to("alice@example.com").cc("bob@example.com").bcc("audit@example.com")
                .subject("Invoice").text("See attachment.").html("<p>See attachment.</p>");
    }

    @Test
    void aRequestBecomesAQueuedRowDueNowWithEveryAttempt() {
        MailMessage mail = cut.create(request(), NOW);

        assertThat(mail.getStatus()).isEqualTo(MailStatus.QUEUED);
        assertThat(mail.getCreatedAt()).isEqualTo(NOW);
        assertThat(mail.getNotBefore()).isEqualTo(NOW);
        assertThat(mail.getAttemptsRemaining()).isEqualTo(5);
        assertThat(mail.getPriority()).isEqualTo(4);
        assertThat(mail.getMessageId()).startsWith("<").endsWith("@shop.example.com>");
        assertThat(mail.getFromAddress()).isEqualTo("billing@shop.example.com");
        assertThat(mail.getFromName()).isEqualTo("Shop");
        assertThat(mail.getTo()).containsExactly("alice@example.com");
        assertThat(mail.getCc()).containsExactly("bob@example.com");
        assertThat(mail.getBcc()).containsExactly("audit@example.com");
        assertThat(mail.getSubject()).isEqualTo("Invoice");
        assertThat(mail.getTextBody()).isEqualTo("See attachment.");
        assertThat(mail.getHtmlBody()).isEqualTo("<p>See attachment.</p>");
        assertThat(mail.getLeaseOwner()).isNull();
    }

    @Test
    void aRequestedPriorityIsKept() {
        assertThat(cut.create(request().priority(9), NOW).getPriority()).isEqualTo(9);
        assertThat(cut.create(request().priority(0), NOW).getPriority()).isZero();
    }

    @Test
    void aFutureNotBeforeIsKeptInUtc() {
        Instant later = Instant.parse("2030-03-14T12:00:00Z");

        assertThat(cut.create(request().notBefore(later), NOW).getNotBefore())
                .isEqualTo(LocalDateTime.of(2030, 3, 14, 12, 0));
    }

    @Test
    void aPastNotBeforeMeansNow() {
        Instant earlier = Instant.parse("2030-03-13T12:00:00Z");

        assertThat(cut.create(request().notBefore(earlier), NOW).getNotBefore()).isEqualTo(NOW);
    }

    @Test
    void atLeastOneAttemptIsMadeWhateverIsConfigured() {
        cut.maxAttempts = 0;

        assertThat(cut.create(request(), NOW).getAttemptsRemaining()).isEqualTo(1);
    }

    @Test
    void aBlankDisplayNameOrReplyToIsNone() {
        MailMessage mail = cut.create(request().fromName("  ").replyTo(""), NOW);

        assertThat(mail.getFromName()).isNull();
        assertThat(mail.getReplyTo()).isNull();
    }

    @Test
    void theRowKeepsItsOwnRecipientListsAndAbsentListsAreEmpty() {
        MailRequest request = request();
        request.setCc(null);
        MailMessage mail = cut.create(request, NOW);

        request.getTo().add("eve@example.com");

        assertThat(mail.getTo()).containsExactly("alice@example.com");
        assertThat(mail.getCc()).isEmpty();
    }

    @Test
    void aMailExpiresAfterTheQueuesMaximumLifetimeUnlessItAsksForLess() {
        assertThat(cut.create(request(), NOW).getExpiresAt()).isEqualTo(NOW.plusDays(5));
        java.time.Instant inAnHour = NOW.plusHours(1).toInstant(java.time.ZoneOffset.UTC);
        assertThat(cut.create(request().expiresAt(inAnHour), NOW).getExpiresAt()).isEqualTo(NOW.plusHours(1));
        java.time.Instant inTenDays = NOW.plusDays(10).toInstant(java.time.ZoneOffset.UTC);
        assertThat(cut.create(request().expiresAt(inTenDays), NOW).getExpiresAt())
                .as("the queue's lifetime caps the caller's").isEqualTo(NOW.plusDays(5));
        cut.maxLifetimeMillis = 0;
        assertThat(cut.create(request(), NOW).getExpiresAt()).as("0: no limit").isNull();
    }

    @Test
    void onePerRecipientMakesACopyForEachRecipientAddressedToItAlone() {
        List<MailMessage> copies = cut.createAll(new MailRequest().from("news@example.com")
                .to("a@example.com", "b@example.com").cc("c@example.com").bcc("d@example.com")
                .subject("s").text("t").perRecipient(true), NOW);

        assertThat(copies).extracting(MailMessage::getTo).containsExactly(
                List.of("a@example.com"), List.of("b@example.com"), List.of("c@example.com"), List.of("d@example.com"));
        assertThat(copies).allSatisfy(copy -> {
            assertThat(copy.getCc()).isEmpty();
            assertThat(copy.getBcc()).isEmpty();
        });
        assertThat(copies).extracting(MailMessage::getMessageId).doesNotHaveDuplicates();
        assertThat(cut.createAll(request(), NOW)).hasSize(1);
    }
}
