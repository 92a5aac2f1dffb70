package dev.mailqueue.mail.control;

import dev.mailqueue.account.control.AccountSettings;
import dev.mailqueue.account.control.Accounts;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.queue.control.AddressNames;
import dev.mailqueue.queue.control.MailGroup;
import dev.mailqueue.queue.control.NewMail;
import dev.mailqueue.unsubscribe.control.UnsubscribeLinks;
import dev.mailqueue.settings.control.QueueSettingsTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** How a validated request becomes mails to queue: defaults, due time, attempts, copies, distinct recipients. */
class MailFactoryTest {

    static final String SECRET = "a secret of at least thirty-two characters";

    static final Instant NOW = Instant.parse("2030-03-14T09:26:53Z");

    MailFactory cut;

    @BeforeEach
    void factory() {
        cut = factory("5", "432000000");
    }

    static MailFactory factory(String maxAttempts, String maxLifetime) {
        MailFactory f = new MailFactory();
        f.messageIds = new MessageIdFactory();
        f.messageIds.domain = Optional.empty();
        f.lifetime = lifetime(maxAttempts, maxLifetime);
        f.accounts = Accounts.of(AccountSettings.parse(name -> Optional.empty()));
        return f;
    }

    static MailLifetime lifetime(String maxAttempts, String maxLifetime) {
        return MailLifetime.of(QueueSettingsTest.defaults("mailqueue.delivery.max-attempts", maxAttempts,
                "mailqueue.delivery.max-lifetime.ms", maxLifetime));
    }

    static ParsedRequest parsed(MailRequest request) {
        return ParsedRequest.of(request);
    }

    static UnsubscribeLinks unsubscribeLinks() {
        return UnsubscribeLinks.of(Map.of(UnsubscribeLinks.URL, "https://mail.shop.example/api/unsubscribe",
                UnsubscribeLinks.SECRET, SECRET, UnsubscribeLinks.LIFETIME, "365")::get);
    }

    static MailRequest request() {
        return new MailRequest().from("billing@shop.example.com").fromName("Shop")
                .to("alice@example.com").cc("bob@example.com").bcc("audit@example.com")
                .subject("Invoice").text("See attachment.").html("<p>See attachment.</p>");
    }

    NewMail one(MailRequest request) {
        MailGroup group = cut.create(ParsedRequest.of(request), NOW, "tester", null, null);
        assertThat(group.mails()).hasSize(1);
        return group.mails().get(0);
    }

    /** Issue 12: addresses stored bare with A-label domains, names apart; one recipient whatever its name or form. */
    @Test
    void namesAreKeptApartAndDomainsStoredAsALabels() {
        NewMail mail = one(new MailRequest().from("Shop <billing@bücher.example>").replyTo("\"Help, Desk\" <help@example.com>")
                .to("\"Doe, Jane\" <jane@example.com>", "pat@BÜCHER.example", "Pat <pat@xn--bcher-kva.example>")
                .cc("JANE@example.com").bcc("José <josé@example.test>").text("x"));

        assertThat(mail.from()).isEqualTo("billing@xn--bcher-kva.example");
        assertThat(mail.fromName()).isEqualTo("Shop");
        assertThat(mail.messageId()).endsWith("@xn--bcher-kva.example>");
        assertThat(mail.replyTo()).isEqualTo("help@example.com");
        assertThat(mail.to()).containsExactly("jane@example.com", "pat@xn--bcher-kva.example");
        assertThat(mail.cc()).isEmpty();
        assertThat(mail.bcc()).containsExactly("josé@example.test");
        assertThat(mail.names().replyTo()).isEqualTo("Help, Desk");
        assertThat(mail.names().toName(0)).isEqualTo("Doe, Jane");
        assertThat(mail.names().toName(1)).isNull();
        assertThat(mail.names().bccName(0)).isEqualTo("José");
        assertThat(AddressNames.decode(mail.names().encode())).isEqualTo(mail.names());
        assertThat(AddressNames.decode(null)).isEqualTo(AddressNames.NONE);
    }

    @Test
    void aRequestBecomesAMailDueNowWithEveryAttempt() {
        NewMail mail = one(request());

        assertThat(mail.createdAt()).isEqualTo(NOW);
        assertThat(mail.notBefore()).isEqualTo(NOW);
        assertThat(mail.attempts()).isEqualTo(5);
        assertThat(mail.priority()).isEqualTo(4);
        assertThat(mail.messageId()).startsWith("<").endsWith("@shop.example.com>");
        assertThat(mail.from()).isEqualTo("billing@shop.example.com");
        assertThat(mail.fromName()).isEqualTo("Shop");
        assertThat(mail.to()).containsExactly("alice@example.com");
        assertThat(mail.cc()).containsExactly("bob@example.com");
        assertThat(mail.bcc()).containsExactly("audit@example.com");
        assertThat(mail.subject()).isEqualTo("Invoice");
        assertThat(mail.text()).isEqualTo("See attachment.");
        assertThat(mail.html()).isEqualTo("<p>See attachment.</p>");
        assertThat(mail.account()).isEqualTo("mailqueue");
        assertThat(mail.enqueuedBy()).isEqualTo("tester");
    }

    @Test
    void aRequestedPriorityIsKept() {
        assertThat(one(request().priority(9)).priority()).isEqualTo(9);
        assertThat(one(request().priority(0)).priority()).isZero();
    }

    @Test
    void aFutureNotBeforeIsKeptAndAPastOneMeansNow() {
        Instant later = Instant.parse("2030-03-14T12:00:00Z");
        assertThat(one(request().notBefore(later)).notBefore()).isEqualTo(later);
        assertThat(one(request().notBefore(Instant.parse("2030-03-13T12:00:00Z"))).notBefore()).isEqualTo(NOW);
    }

    @Test
    void aBlankDisplayNameOrReplyToIsNone() {
        NewMail mail = one(request().fromName("  ").replyTo(""));
        assertThat(mail.fromName()).isNull();
        assertThat(mail.replyTo()).isNull();
    }

    @Test
    void theMailKeepsItsOwnRecipientListsAndAbsentListsAreEmpty() {
        MailRequest request = request();
        request.setCc(null);
        NewMail mail = one(request);

        request.getTo().add("eve@example.com");

        assertThat(mail.to()).containsExactly("alice@example.com");
        assertThat(mail.cc()).isEmpty();
    }

    @Test
    void aRecipientNamedTwiceIsSentTheMailOnceInItsFirstPlaceWhateverTheCase() {
        NewMail mail = one(new MailRequest().from("a@example.com").to("Ok@X.example", "ok@x.example", "bad@x.example")
                .cc("OK@x.EXAMPLE", "carol@x.example").bcc("bad@X.example", "dave@x.example").subject("s").text("t"));

        assertThat(mail.to()).containsExactly("Ok@X.example", "bad@x.example");
        assertThat(mail.cc()).containsExactly("carol@x.example");
        assertThat(mail.bcc()).containsExactly("dave@x.example");
    }

    @Test
    void aMailExpiresAfterTheQueuesMaximumLifetimeUnlessItAsksForLess() {
        assertThat(one(request()).expiresAt()).isEqualTo(NOW.plus(Duration.ofDays(5)));
        Instant inAnHour = NOW.plus(Duration.ofHours(1));
        assertThat(one(request().expiresAt(inAnHour)).expiresAt()).isEqualTo(inAnHour);
        assertThat(one(request().expiresAt(NOW.plus(Duration.ofDays(10)))).expiresAt())
                .as("the queue's lifetime caps the caller's").isEqualTo(NOW.plus(Duration.ofDays(5)));
        cut = factory("5", "0");
        assertThat(one(request()).expiresAt()).as("0: no limit").isNull();
    }

    @Test
    void eachCopyOfAPerRecipientMailKeepsItsRecipientsName() {
        MailGroup copies = cut.create(parsed(new MailRequest().from("news@example.com").to("\"Doe, Jane\" <jane@example.com>")
                .bcc("Pat <pat@bücher.example>").subject("s").text("t").perRecipient(true)), NOW, "tester", null, null);

        assertThat(copies.mails()).extracting(NewMail::to)
                .containsExactly(List.of("jane@example.com"), List.of("pat@xn--bcher-kva.example"));
        assertThat(copies.mails()).extracting(m -> m.names().toName(0)).containsExactly("Doe, Jane", "Pat");
    }

    @Test
    void onePerRecipientMakesACopyForEachDistinctRecipientAddressedToItAlone() {
        MailGroup copies = cut.create(parsed(new MailRequest().from("news@example.com")
                .to("a@example.com", "b@example.com").cc("c@example.com", "A@example.com").bcc("d@example.com")
                .subject("s").text("t").perRecipient(true)), NOW, "tester", null, null);

        assertThat(copies.copies()).isTrue();
        assertThat(copies.mails()).extracting(NewMail::to).containsExactly(
                List.of("a@example.com"), List.of("b@example.com"), List.of("c@example.com"), List.of("d@example.com"));
        assertThat(copies.mails()).allSatisfy(copy -> {
            assertThat(copy.cc()).isEmpty();
            assertThat(copy.bcc()).isEmpty();
        });
        assertThat(copies.mails()).extracting(NewMail::messageId).doesNotHaveDuplicates();
    }

    @Test
    void aMailOfAListStoresItsListButNoUnsubscribeFieldThatASenderCouldReadBack() {
        MailGroup copies = cut.create(parsed(new MailRequest().from("news@example.com").to("a@example.com").bcc("b@example.com")
                .header("X-Campaign", "spring").subject("s").text("t").perRecipient(true).unsubscribeList("news")),
                NOW, "tester", null, null);

        assertThat(copies.mails()).extracting(NewMail::unsubscribeList).containsExactly("news", "news");
        assertThat(copies.mails()).allSatisfy(copy -> assertThat(copy.headers()).extracting(NewMail.Header::name)
                .as("the links are written when each copy is sent").containsExactly("X-Campaign"));
        assertThat(one(request()).unsubscribeList()).as("no list").isNull();
    }
}
