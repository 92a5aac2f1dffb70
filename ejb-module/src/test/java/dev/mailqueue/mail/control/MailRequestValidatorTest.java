package dev.mailqueue.mail.control;

import dev.mailqueue.address.control.Mailbox;
import dev.mailqueue.account.control.AccountSettings;
import dev.mailqueue.account.control.Accounts;
import dev.mailqueue.api.FieldError;
import dev.mailqueue.api.InvalidMailException;
import dev.mailqueue.api.MailRequest;
import dev.mailqueue.unsubscribe.control.UnsubscribeLinks;
import jakarta.validation.Validation;
import jakarta.validation.ValidatorFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The rules a mail request must keep, checked by the real Hibernate Validator through
 * {@link MailRequestValidator}: what passes, what is refused, and that each refusal names the field
 * as the JSON does ({@code to[0]}, {@code cc[1]}) with a message a caller can act on.
 */
class MailRequestValidatorTest {

    static ValidatorFactory validation;
    MailRequestValidator cut;

    @BeforeAll
    static void startValidation() {
        validation = Validation.buildDefaultValidatorFactory();
    }

    @AfterAll
    static void stopValidation() {
        validation.close();
    }

    @BeforeEach
    void validator() {
        cut = new MailRequestValidator();
        cut.validator = validation.getValidator();
        cut.attachments = AttachmentPolicy.of(20, 10_485_760, AttachmentPolicy.GMAIL_BLOCKED);
        cut.headers = new HeaderPolicy();
        cut.accounts = Accounts.of(AccountSettings.parse(
                name -> Optional.ofNullable(Map.of("mailqueue.accounts", "mailqueue,bulk",
                        "mailqueue.account.bulk.smtputf8", "refuse").get(name))));
        cut.lifetime = MailFactoryTest.lifetime("100", "432000000"); // the defaults: 5 days
        cut.unsubscribeLinks = MailFactoryTest.unsubscribeLinks();
    }

    static MailRequest good() {
        return new MailRequest()
                .from("sender@example.com").fromName("Example Sender")
                .replyTo("help@example.com")
                .to("alice@example.com").cc("bob@example.org").bcc("audit@example.net")
                .subject("Your order 4711").text("Thank you.").html("<p>Thank you.</p>")
                .priority(4);
    }

    @Test
    void aGoodRequestPasses() {
        assertThatCode(() -> cut.check(good())).doesNotThrowAnyException();
    }

    @Test
    void aRequestThatPassesComesBackWithItsAddressesParsedOnceAndItsRecipientsWithoutRepeats() throws Exception {
        ParsedRequest parsed = cut.check(new MailRequest().from("Sender <sender@bücher.example>")
                .replyTo("help@example.com").to("Alice <alice@example.com>").cc("ALICE@example.com", "bob@example.org")
                .bcc("audit@example.net").text("x"));

        assertThat(parsed.from().address()).isEqualTo("sender@xn--bcher-kva.example");
        assertThat(parsed.fromName()).isEqualTo("Sender");
        assertThat(parsed.replyTo().address()).isEqualTo("help@example.com");
        assertThat(parsed.to()).extracting(Mailbox::address, Mailbox::name).containsExactly(tuple("alice@example.com", "Alice"));
        assertThat(parsed.cc()).extracting(Mailbox::address).containsExactly("bob@example.org");
        assertThat(parsed.recipients()).extracting(Mailbox::address)
                .containsExactly("alice@example.com", "bob@example.org", "audit@example.net");
    }

    @Test
    void aMinimalRequestPasses() {
        MailRequest minimal = new MailRequest().from("a@example.com").bcc("b@example.com").html("<p>x</p>");

        assertThatCode(() -> cut.check(minimal)).doesNotThrowAnyException();
    }

    @Test
    void aConfiguredAccountPasses() {
        assertThatCode(() -> cut.check(good().account("bulk"))).doesNotThrowAnyException();
    }

    @Test
    void anUnknownAccountIsRefusedNamingTheFieldButNotTheAccountsThereAre() {
        assertThat(errors(good().account("marketing"))).singleElement().satisfies(error -> {
            assertThat(error.getField()).isEqualTo("account");
            assertThat(error.getMessage()).contains("not an SMTP account").doesNotContain("mailqueue", "bulk");
        });
    }

    @Test
    void aMailOfAListToOneRecipientOrOneCopyEachPasses() {
        assertThatCode(() -> cut.check(new MailRequest().from("news@example.com").to("reader@example.org")
                .subject("Issue 7").text("News.").unsubscribeList("news"))).doesNotThrowAnyException();
        assertThatCode(() -> cut.check(good().unsubscribeList("news").perRecipient(true))).doesNotThrowAnyException();
        assertThatCode(() -> cut.check(new MailRequest().from("news@example.com").to("reader@example.org")
                .cc("Reader@example.org").text("the same recipient twice is one").unsubscribeList("news")))
                .doesNotThrowAnyException();
    }

    @Test
    void aMailOfAListToSeveralRecipientsIsRefusedSinceEachNeedsItsOwnLink() {
        assertThat(errors(good().unsubscribeList("news"))).singleElement().satisfies(error -> {
            assertThat(error.getField()).isEqualTo("unsubscribeList");
            assertThat(error.getMessage()).contains("exactly one recipient", "perRecipient");
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "*", "news letter", "news\n", "n\u00fcws", "l23456789012345678901234567890123456789012345678901234567890123456"})
    void aListThatIsNoListNameIsRefused(String list) {
        assertThat(errors(good().perRecipient(true).unsubscribeList(list))).singleElement().satisfies(error -> {
            assertThat(error.getField()).isEqualTo("unsubscribeList");
            assertThat(error.getMessage()).contains("is not a list name");
        });
    }

    @Test
    void aListMailMayNotWriteTheUnsubscribeFieldsItself() {
        assertThat(errors(good().perRecipient(true).unsubscribeList("news")
                .header("list-unsubscribe", "<mailto:off@example.com>")
                .header("List-Unsubscribe-Post", "List-Unsubscribe=One-Click")))
                .extracting(FieldError::getField)
                .containsExactly("headers.List-Unsubscribe-Post", "headers.list-unsubscribe");
        assertThatCode(() -> cut.check(good().header("List-Unsubscribe", "<mailto:off@example.com>")))
                .as("without unsubscribeList the caller's own field is fine").doesNotThrowAnyException();
    }

    @Test
    void aListMailIsRefusedWhereOneClickUnsubscribeIsNotConfigured() {
        cut.unsubscribeLinks = UnsubscribeLinks.of(name -> null);

        assertThat(errors(good().perRecipient(true).unsubscribeList("news"))).singleElement().satisfies(error -> {
            assertThat(error.getField()).isEqualTo("unsubscribeList");
            assertThat(error.getMessage()).contains("not configured", "mailqueue.unsubscribe.url");
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " bulk", "bulk\u0000", "bulk\nX", "b\u00fclk"})
    void anAccountThatIsNoAccountNameIsRefusedOnceForItsShape(String account) {
        assertThat(errors(good().account(account)))
                .singleElement().satisfies(error -> {
                    assertThat(error.getField()).isEqualTo("account");
                    assertThat(error.getMessage()).contains("is not an account name");
                });
    }

    @Test
    void anOverlongAccountIsRefusedOnceForItsLength() {
        assertThat(errors(good().account("a".repeat(65)))).singleElement()
                .satisfies(error -> assertThat(error.getMessage()).contains("1 to 64"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"not-an-address", "a@b@c", "Smith, Bob <bob@example.com>", "bob@example.com\r\nBcc: eve@example.com",
            "bob@example.com\n", "(Bob) bob@example.com", "bob@example.com, eve@example.com", "bob@", "@example.com",
            "bob smith@example.com", " ", "bob@example..com"})
    void aBadRecipientIsRefusedNamingItsPlaceInTheList(String address) {
        MailRequest request = good();
        request.setTo(List.of(address));

        assertThat(errors(request)).singleElement().satisfies(error -> {
            assertThat(error.getField()).isEqualTo("to[0]");
            assertThat(error.getMessage()).isNotBlank().doesNotContain("{").doesNotContain("}");
        });
    }

    @Test
    void aDisplayNameInAnAddressIsAccepted() {
        MailRequest request = good().fromName(null).from("Bob <bob@example.com>").replyTo("\"Help, Desk\" <help@example.com>");
        request.setTo(List.of("\"Doe, Jane\" <jane@example.org>", "José <josé@bücher.example>"));

        assertThatCode(() -> cut.check(request)).doesNotThrowAnyException();
    }

    @Test
    void aSenderNameGivenTwiceMustBeTheSame() {
        assertThatCode(() -> cut.check(good().from("Bob <bob@example.com>").fromName("Bob"))).doesNotThrowAnyException();
        assertThat(errors(good().from("Bob <bob@example.com>").fromName("Robert"))).singleElement().satisfies(error -> {
            assertThat(error.getField()).isEqualTo("fromName");
            assertThat(error.getMessage()).contains("once");
        });
    }

    @Test
    void aLineBreakInAnAddressIsRefusedAsSuch() {
        MailRequest request = good();
        request.setReplyTo("help@example.com\r\nBcc: eve@example.com");

        assertThat(errors(request)).singleElement().satisfies(error -> {
            assertThat(error.getField()).isEqualTo("replyTo");
            assertThat(error.getMessage()).contains("line break");
        });
    }

    @Test
    void eachBadAddressIsNamedByItsListAndIndex() {
        MailRequest request = good();
        request.setCc(List.of("ok@example.com", "not-an-address"));
        request.setBcc(List.of("fine@example.com", "fine2@example.com", "a@b@c"));
        request.setFrom("nobody");

        assertThat(errors(request)).extracting(FieldError::getField).containsExactly("bcc[2]", "cc[1]", "from");
    }

    @Test
    void aNullInARecipientListIsNamed() {
        MailRequest request = good();
        request.setTo(Arrays.asList("alice@example.com", null));

        assertThat(errors(request)).extracting(FieldError::toString).containsExactly("to[1]: must not be null");
    }

    @Test
    void theSenderIsRequired() {
        MailRequest request = good();
        request.setFrom(null);

        assertThat(errors(request)).extracting(FieldError::toString).containsExactly("from: is required");
    }

    @Test
    void aLocalPartOf64OctetsPassesAnd65AreRefused() {
        MailRequest longest = good();
        longest.setTo(List.of("a".repeat(64) + "@example.com"));
        MailRequest tooLong = good();
        tooLong.setTo(List.of("a".repeat(65) + "@example.com"));

        assertThatCode(() -> cut.check(longest)).doesNotThrowAnyException();
        assertThat(errors(tooLong)).singleElement().satisfies(error -> {
            assertThat(error.getField()).isEqualTo("to[0]");
            assertThat(error.getMessage()).contains("local part").contains("64");
        });
    }

    @Test
    void anAddressOf254OctetsPassesAnd255AreRefused() {
        MailRequest longest = good();
        longest.setTo(List.of(addressOfLength(254)));
        MailRequest tooLong = good();
        tooLong.setTo(List.of(addressOfLength(255)));

        assertThatCode(() -> cut.check(longest)).doesNotThrowAnyException();
        assertThat(errors(tooLong)).singleElement().satisfies(error -> {
            assertThat(error.getField()).isEqualTo("to[0]");
            assertThat(error.getMessage()).contains("254");
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"Hello\r\nBcc: eve@example.com", "Hello\nX-Spam: no", "Hello\r"})
    void aLineBreakInTheSubjectIsRefused(String subject) {
        MailRequest request = good();
        request.setSubject(subject);

        assertThat(errors(request)).extracting(FieldError::toString)
                .containsExactly("subject: must not contain CR, LF, NUL or other control characters (tab is allowed)");
    }

    @Test
    void aLineBreakInTheSendersNameIsRefused() {
        MailRequest request = good();
        request.setFromName("Example\r\nBcc: eve@example.com");

        assertThat(errors(request)).extracting(FieldError::toString)
                .containsExactly("fromName: must not contain CR, LF, NUL or other control characters (tab is allowed)");
    }

    @Test
    void theSendersNameIsAtMost200Characters() {
        MailRequest longest = good().fromName("n".repeat(200));
        MailRequest tooLong = good().fromName("n".repeat(201));

        assertThatCode(() -> cut.check(longest)).doesNotThrowAnyException();
        assertThat(errors(tooLong)).extracting(FieldError::toString)
                .containsExactly("fromName: must be at most 200 characters");
    }

    @Test
    void aMailWithoutAnyRecipientIsRefusedOnTo() {
        MailRequest request = good();
        request.setTo(new ArrayList<>());
        request.setCc(null);
        request.setBcc(List.of());

        assertThat(errors(request)).singleElement().satisfies(error -> {
            assertThat(error.getField()).isEqualTo("to");
            assertThat(error.getMessage()).contains("at least one recipient");
        });
    }

    @Test
    void aHundredRecipientsPassAndAHundredAndOneAreRefused() {
        MailRequest hundred = good();
        hundred.setTo(addresses("to", 50));
        hundred.setCc(addresses("cc", 30));
        hundred.setBcc(addresses("bcc", 20));
        MailRequest hundredAndOne = good();
        hundredAndOne.setTo(addresses("to", 50));
        hundredAndOne.setCc(addresses("cc", 30));
        hundredAndOne.setBcc(addresses("bcc", 21));

        assertThatCode(() -> cut.check(hundred)).doesNotThrowAnyException();
        assertThat(errors(hundredAndOne)).singleElement().satisfies(error -> {
            assertThat(error.getField()).isEqualTo("to");
            assertThat(error.getMessage()).contains("at most 100 recipients");
        });
    }

    @Test
    void aMailWithoutBodyIsRefusedOnText() {
        MailRequest request = good();
        request.setText(null);
        request.setHtml("");

        assertThat(errors(request)).singleElement().satisfies(error -> {
            assertThat(error.getField()).isEqualTo("text");
            assertThat(error.getMessage()).contains("text or an HTML body");
        });
    }

    @Test
    void aSubjectOf998CharactersPassesAnd999AreRefused() {
        MailRequest longest = good().subject("s".repeat(998));
        MailRequest tooLong = good().subject("s".repeat(999));

        assertThatCode(() -> cut.check(longest)).doesNotThrowAnyException();
        assertThat(errors(tooLong)).extracting(FieldError::toString)
                .containsExactly("subject: must be at most 998 characters (RFC 5322 2.1.1)");
    }

    @Test
    void bodiesOfOneMebibyteOfCharactersPassAndOneMoreIsRefused() {
        String mebi = "x".repeat(1_048_576);
        MailRequest longest = good().text(mebi).html(mebi);
        MailRequest tooLong = good().text(mebi + "x").html(mebi + "x");

        assertThatCode(() -> cut.check(longest)).doesNotThrowAnyException();
        assertThat(errors(tooLong)).extracting(FieldError::toString).containsExactly(
                "html: must be at most 1048576 characters", "text: must be at most 1048576 characters");
    }

    @ParameterizedTest
    @ValueSource(ints = {-1, 10})
    void aPriorityOutside0To9IsRefused(int priority) {
        MailRequest request = good().priority(priority);

        assertThat(errors(request)).extracting(FieldError::toString).containsExactly("priority: must be between 0 and 9");
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 9})
    void priorities0And9Pass(int priority) {
        assertThatCode(() -> cut.check(good().priority(priority))).doesNotThrowAnyException();
    }

    @Test
    void everyBrokenRuleIsReportedAtOnceAndSortedByField() {
        MailRequest request = new MailRequest().subject("a\nb").priority(12);

        InvalidMailException e = catchThrowableOfType(InvalidMailException.class, () -> cut.check(request));

        assertThat(e.getErrors()).extracting(FieldError::getField)
                .containsExactly("from", "priority", "subject", "text", "to");
        assertThat(e.getMessage()).startsWith("Invalid mail: ").contains("from: is required");
    }

    @Test
    void noRequestAtAllIsRefused() {
        InvalidMailException e = catchThrowableOfType(InvalidMailException.class, () -> cut.check(null));

        assertThat(e.getErrors()).extracting(FieldError::getMessage).containsExactly("a mail is required");
    }

    @Test
    void anErrorMessageDoesNotEvaluateWhatTheCallerSent() {
        MailRequest request = good();
        request.setTo(List.of("${7*7}#{7*7}@a@b"));

        assertThat(errors(request)).singleElement().satisfies(error ->
                assertThat(error.getMessage()).doesNotContain("49").doesNotContain("${"));
    }

    @Test
    void aQuotedLocalPartWithACommaIsRefused() {
        // Recipient lists are stored comma-separated (AddressLists) and rely on this refusal.
        MailRequest request = good();
        request.setTo(List.of("\"doe,john\"@example.com"));

        assertThat(errors(request)).extracting(FieldError::getField).containsExactly("to[0]");
    }

    /** An account whose relay never offers SMTPUTF8 refuses such addresses up front; IDN domains are fine. */
    @Test
    void anAccountSetToRefuseSmtpUtf8RefusesANonAsciiLocalPartAtEnqueue() {
        MailRequest request = good().account("bulk");
        request.setTo(List.of("pat@bücher.example", "José <josé@example.test>"));

        assertThat(errors(request)).singleElement().satisfies(error -> {
            assertThat(error.getField()).isEqualTo("to[1]");
            assertThat(error.getMessage()).contains("SMTPUTF8", "RFC 6531", "mailqueue.account.bulk.smtputf8=refuse");
        });
    }

    /** A Unicode domain goes out as its A-label; a non-ASCII local part needs SMTPUTF8 (decided when sent). */
    @Test
    void anInternationalizedAddressIsAccepted() {
        MailRequest request = good();
        request.setTo(List.of("jörg@example.de", "pat@bücher.example"));

        assertThatCode(() -> cut.check(request)).doesNotThrowAnyException();
    }

    @Test
    void aMailWithAttachmentsAndCustomHeadersWithinTheLimitsPasses() {
        MailRequest request = good()
                .attach("invoice 4711.pdf", "application/pdf", new byte[10_485_760 - 3])
                .attach("notes", null, new byte[3])
                .header("List-Unsubscribe", "<mailto:unsubscribe@example.com>")
                .header("X-Campaign", "Frühling\t2026");

        assertThatCode(() -> cut.check(request)).doesNotThrowAnyException();
    }

    @ParameterizedTest
    @ValueSource(strings = {"setup.exe", "SETUP.EXE", "invoice.pdf.exe", "run.bat", "x.js", "x.vbs", "x.jar", "x.msi",
            "x.ps1", "x.scr", "x.cmd", "x.com", "trailing.exe.", "trailing.exe  ", "x.Lnk"})
    void anExecutableFileTypeIsRefusedNamingTheAttachment(String filename) {
        MailRequest request = good().attach("fine.pdf", "application/pdf", new byte[1]).attach(filename, null, new byte[1]);

        assertThat(errors(request)).singleElement().satisfies(error -> {
            assertThat(error.getField()).isEqualTo("attachments[1].filename");
            assertThat(error.getMessage()).contains("blocked file type");
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"report.pdf", "photo.JPG", "archive.tar.gz", "README", "exe", "data.exe-not", "x.docx"})
    void ordinaryFileNamesPass(String filename) {
        assertThatCode(() -> cut.check(good().attach(filename, null, new byte[1]))).doesNotThrowAnyException();
    }

    @Test
    void attachmentsOverTheTotalSizeAreRefusedOnAttachments() {
        MailRequest request = good()
                .attach("a.pdf", "application/pdf", new byte[10_485_760])
                .attach("b.pdf", "application/pdf", new byte[1]);

        assertThat(errors(request)).singleElement().satisfies(error -> {
            assertThat(error.getField()).isEqualTo("attachments");
            assertThat(error.getMessage()).contains("10485761 bytes").contains("10485760");
        });
    }

    @Test
    void moreThanTheMaximumCountOfAttachmentsIsRefused() {
        MailRequest request = good();
        IntStream.range(0, 21).forEach(i -> request.attach("f" + i + ".txt", "text/plain", new byte[1]));

        assertThat(errors(request)).extracting(FieldError::getField).containsExactly("attachments");
    }

    @Test
    void eachBadPartOfAnAttachmentIsNamed() {
        MailRequest request = good()
                .attach("ok.txt", "text/plain", new byte[1])
                .attach("a\r\nContent-Type: text/html", "text/plain", new byte[1])
                .attach("../../etc/passwd", "not a type", null)
                .attach(" ", "multipart/mixed; boundary=x", new byte[1]);
        request.getAttachments().add(null);

        assertThat(errors(request)).extracting(FieldError::getField).containsExactly(
                "attachments[1].filename",
                "attachments[2].content", "attachments[2].contentType", "attachments[2].filename",
                "attachments[3].contentType", "attachments[3].filename",
                "attachments[4]");
    }

    @ParameterizedTest
    @ValueSource(strings = {"From", "to", "CC", "Bcc", "Sender", "reply-to", "Subject", "Date", "Message-Id", "Return-Path",
            "MIME-Version", "Content-Type", "content-transfer-encoding", "Content-Disposition"})
    void aHeaderTheQueueWritesCannotBeGiven(String name) {
        MailRequest request = good().header(name, "x@example.com");

        assertThat(errors(request)).singleElement().satisfies(error -> {
            assertThat(error.getField()).isEqualTo("headers." + name);
            assertThat(error.getMessage()).contains("set by the queue");
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"X-Tag\r\nBcc: eve@example.com", "X-Tag\nBcc: eve@example.com", "X-Tag\r", "x\u0000y"})
    void aLineBreakOrControlCharacterInAHeaderValueIsRefused(String value) {
        MailRequest request = good().header("X-Tag", value);

        assertThat(errors(request)).singleElement().satisfies(error -> {
            assertThat(error.getField()).isEqualTo("headers.X-Tag");
            assertThat(error.getMessage()).contains("CR, LF");
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"X Tag", "X-Tag:", "X-Tag\r\nBcc", "X-Täg", "",
            "X-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"})
    void aHeaderNameOutsideRfc5322IsRefused(String name) {
        MailRequest request = good().header(name, "v");

        String expected = "headers." + name;
        assertThat(errors(request)).singleElement().satisfies(error -> {
            assertThat(error.getField()).isEqualTo(expected);
            assertThat(error.getMessage()).contains("RFC 5322 3.6.8");
        });
    }

    @Test
    void aHeaderNameOf76CharactersPasses() {
        assertThatCode(() -> cut.check(good().header("X-" + "a".repeat(74), "v"))).doesNotThrowAnyException();
    }

    @Test
    void aHeaderValueOf998CharactersPassesAnd999AreRefused() {
        assertThatCode(() -> cut.check(good().header("X-Long", "v".repeat(998)))).doesNotThrowAnyException();
        assertThat(errors(good().header("X-Long", "v".repeat(999)))).extracting(FieldError::getField)
                .containsExactly("headers.X-Long");
    }

    @Test
    void theSameHeaderNameTwiceInDifferentCaseIsRefused() {
        MailRequest request = good().header("X-Tag", "a").header("x-tag", "b");

        assertThat(errors(request)).extracting(FieldError::getMessage).singleElement().asString().contains("twice");
    }

    @Test
    void moreThan50HeadersAreRefused() {
        MailRequest request = good();
        IntStream.range(0, 51).forEach(i -> request.header("X-H" + i, "v"));

        assertThat(errors(request)).extracting(FieldError::getField).containsExactly("headers");
    }

    @Test
    void aBatchNamesEachRefusedFieldWithTheIndexOfItsMail() {
        MailRequest badRecipient = good();
        badRecipient.setTo(List.of("not an address"));
        MailRequest noBody = good().text(null).html(null);

        InvalidMailException e = catchThrowableOfType(InvalidMailException.class,
                () -> cut.checkAll(List.of(good(), badRecipient, good(), noBody)));

        assertThat(e).isNotNull();
        assertThat(e.getErrors()).extracting(FieldError::getField).containsExactly("[1].to[0]", "[3].text");
    }

    @Test
    void aBatchOfValidMailsPasses() throws InvalidMailException {
        cut.checkAll(java.util.Collections.nCopies(1_000, good()));
    }

    @Test
    void anEmptyBatchAndOneOverTheLimitAreRefused() {
        for (List<MailRequest> batch : List.of(List.<MailRequest>of(), java.util.Collections.nCopies(dev.mailqueue.api.MailLimits.BATCH + 1, good()))) {
            InvalidMailException e = catchThrowableOfType(InvalidMailException.class, () -> cut.checkAll(batch));
            assertThat(e).as("batch of %d", batch.size()).isNotNull();
            assertThat(e.getErrors()).singleElement().satisfies(error -> assertThat(error.getMessage()).isNotBlank());
        }
    }

    private List<FieldError> errors(MailRequest request) {
        InvalidMailException e = catchThrowableOfType(InvalidMailException.class, () -> cut.check(request));
        assertThat(e).as("check(%s) must refuse the request", request).isNotNull();
        assertThat(e.getErrors()).allSatisfy(error -> assertThat(error.getMessage()).isNotBlank());
        return e.getErrors();
    }

    /** @return {@code local@domain} of exactly {@code octets} octets: a 64-octet local part, labels of 63 */
    private static String addressOfLength(int octets) {
        String local = "l".repeat(64);
        StringBuilder domain = new StringBuilder();
        int remaining = octets - local.length() - 1 - ".com".length();
        while (remaining > 0) {
            int label = Math.min(63, remaining);
            if (remaining - label == 1) {
                label--; // leave room for a label of at least one character after its dot
            }
            domain.append("d".repeat(label));
            remaining -= label;
            if (remaining > 0) {
                domain.append('.');
                remaining--;
            }
        }
        String address = local + "@" + domain + ".com";
        assertThat(address).hasSize(octets);
        return address;
    }

    private static List<String> addresses(String prefix, int count) {
        return IntStream.range(0, count).mapToObj(i -> prefix + i + "@example.com").toList();
    }

    @ParameterizedTest
    @ValueSource(strings = {"Hello\u0000", "\u0000", "Hi\u0007there", "Tab\u007f", "Esc\u001b[31m", "lone \ud800 surrogate",
            "reversed \udc00\ud800"})
    void textTheQueueCannotStoreOrSendIsRefusedInEveryTextField(String text) {
        MailRequest request = good();
        request.setSubject(text);
        request.setFromName(text);
        request.setText(text);
        request.setHtml(text);

        assertThat(errors(request)).extracting(FieldError::getField)
                .containsExactlyInAnyOrder("fromName", "html", "subject", "text");
    }

    @Test
    void bodiesMayHoldTabsAndLineBreaksAndEveryPairedCharacter() {
        MailRequest request = good();
        request.setText("Dear customer,\r\n\tthank you \ud83d\udce8\nBye");
        request.setHtml("<p>\tok</p>\r\n");
        request.setSubject("Tab\tis fine \ud83d\udce8");

        assertThatCode(() -> cut.check(request)).doesNotThrowAnyException();
    }

    @ParameterizedTest
    @ValueSource(strings = {"+999999999-12-31T23:59:59Z", "-999999999-01-01T00:00:00Z", "1969-12-31T23:59:59Z",
            "+10000-01-01T00:00:00Z"})
    void timesOutsideWhatEveryDatabaseStoresAreRefusedNamingTheField(String instant) {
        MailRequest notBefore = good().notBefore(java.time.Instant.parse(instant));
        MailRequest expiresAt = good().expiresAt(java.time.Instant.parse(instant));

        assertThat(errors(notBefore)).extracting(FieldError::getField).containsExactly("notBefore");
        assertThat(errors(expiresAt)).extracting(FieldError::getField).containsExactly("expiresAt");
    }

    @Test
    void aMailDueOnlyAfterItExpiresIsRefused() {
        java.time.Instant now = java.time.Instant.now();

        assertThat(errors(good().notBefore(java.time.Instant.parse("9999-12-31T23:59:59Z"))))
                .as("after the 5 days of the maximum lifetime").singleElement().satisfies(error -> {
                    assertThat(error.getField()).isEqualTo("notBefore");
                    assertThat(error.getMessage()).contains("mailqueue.delivery.max-lifetime.ms");
                });
        assertThat(errors(good().notBefore(now.plus(java.time.Duration.ofDays(30)))))
                .extracting(FieldError::getField).containsExactly("notBefore");
        assertThat(errors(good().notBefore(now.plus(java.time.Duration.ofDays(30)))
                .expiresAt(now.plus(java.time.Duration.ofDays(31))))).extracting(FieldError::getField)
                .as("expiresAt later than the lifetime does not help").containsExactly("notBefore");
        assertThat(errors(good().notBefore(now.plus(java.time.Duration.ofDays(2))).expiresAt(now.plus(java.time.Duration.ofDays(1)))))
                .extracting(FieldError::getField).containsExactly("expiresAt");
        assertThatCode(() -> cut.check(good().notBefore(now.plus(java.time.Duration.ofDays(4)))))
                .as("within the lifetime").doesNotThrowAnyException();

        cut.lifetime = MailFactoryTest.lifetime("100", "0"); // no limit: only expiresAt bounds it
        assertThatCode(() -> cut.check(good().notBefore(java.time.Instant.parse("9999-12-30T00:00:00Z"))))
                .doesNotThrowAnyException();
    }

    @ParameterizedTest
    @ValueSource(strings = {"Resent-From", "resent-sender", "RESENT-TO", "Received", "Authentication-Results",
            "DKIM-Signature", "dkim-signature", "ARC-Seal", "arc-message-signature", "ARC-Authentication-Results",
            "Received-SPF", "DomainKey-Signature", "Delivered-To", "Return-Path"})
    void headersThatOnlyMailServersWriteAreRefusedInAnyLetterCase(String name) {
        assertThat(errors(good().header(name, "forged"))).extracting(FieldError::getField)
                .containsExactly("headers." + name);
    }

    @Test
    void aHeaderValueWithAnUnpairedSurrogateIsRefused() {
        assertThat(errors(good().header("X-Campaign", "spring \ud800"))).extracting(FieldError::getField)
                .containsExactly("headers.X-Campaign");
    }

    @ParameterizedTest
    @ValueSource(strings = {"application/pdf; filename=\"evil.exe\"", "application/pdf; name=evil.exe",
            "application/pdf; NAME*=utf-8''evil.exe", "application/pdf; filename*0=\"ev\"; filename*1=\"il.exe\"",
            "text/plain; charset=utf-8; Filename=x.js"})
    void aContentTypeParameterThatNamesAFileIsRefused(String contentType) {
        MailRequest request = good().attach("invoice.pdf", contentType, new byte[]{1});

        assertThat(errors(request)).extracting(FieldError::getField).containsExactly("attachments[0].contentType");
    }

    @Test
    void aContentTypeWithOtherParametersPasses() {
        assertThatCode(() -> cut.check(good().attach("notes.txt", "text/plain; charset=utf-8", new byte[]{1})))
                .doesNotThrowAnyException();
    }

    @ParameterizedTest
    @ValueSource(strings = {"invoice\u202Efdp.exe", "invoice\u202Egpj.scr", "report\u200B.pdf", "a\u2066b.txt",
            "lone\ud800.pdf"})
    void aFileNameThatCouldDisguiseItsTypeIsRefused(String filename) {
        assertThat(errors(good().attach(filename, "application/pdf", new byte[]{1})))
                .extracting(FieldError::getField).isNotEmpty().containsOnly("attachments[0].filename");
    }
}
