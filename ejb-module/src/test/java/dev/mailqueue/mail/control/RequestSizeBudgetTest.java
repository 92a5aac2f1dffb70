package dev.mailqueue.mail.control;

import dev.mailqueue.api.Attachment;
import dev.mailqueue.api.InvalidMailException;
import dev.mailqueue.api.MailRequest;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The enqueue size budget: the JSON the REST API would have read, for EJB callers too. */
class RequestSizeBudgetTest {

    static final long FOUR_MIB = 4L * 1024 * 1024;

    static MailRequest mailWith(byte[] attachment) {
        return new MailRequest().from("shop@sender.example").to("customer@example.com").subject("Invoice")
                .text("Attached.").attach("invoice.pdf", "application/pdf", attachment);
    }

    @Test
    void aBatchJustOverTheBudgetIsRefusedNamingTheMailAndFieldWhereItPassesIt() {
        RequestSizeBudget cut = RequestSizeBudget.of(FOUR_MIB);
        byte[] file = new byte[900_000]; // 1,200,000 characters of base64: three fit into 4 MiB, four do not
        List<MailRequest> three = List.of(mailWith(file), mailWith(file), mailWith(file));
        List<MailRequest> four = List.of(mailWith(file), mailWith(file), mailWith(file), mailWith(file));

        assertThatCode(() -> cut.checkAll(three)).doesNotThrowAnyException();
        assertThatThrownBy(() -> cut.checkAll(four)).isInstanceOfSatisfying(InvalidMailException.class, e ->
                assertThat(e.getErrors()).singleElement().satisfies(error -> {
                    assertThat(error.getField()).isEqualTo("[3].attachments");
                    assertThat(error.getMessage()).contains("4194304 bytes", "mailqueue.http.max-request-bytes");
                }));
    }

    @Test
    void oneMailIsMeasuredByItsFieldsToo() {
        RequestSizeBudget cut = RequestSizeBudget.of(1_000);
        MailRequest mail = new MailRequest().from("shop@sender.example").to("customer@example.com").subject("Hi")
                .text("x".repeat(1_000));

        assertThatThrownBy(() -> cut.check(mail)).isInstanceOfSatisfying(InvalidMailException.class,
                e -> assertThat(e.getErrors()).singleElement().satisfies(error -> assertThat(error.getField()).isEqualTo("text")));
        assertThatCode(() -> cut.check(mail.text("x".repeat(900)))).doesNotThrowAnyException();
        assertThatCode(() -> cut.check(null)).as("the validator refuses a missing mail").doesNotThrowAnyException();
        assertThatCode(() -> cut.checkAll(null)).doesNotThrowAnyException();
    }

    /**
     * The estimate never exceeds the smallest JSON of the request (so nothing the REST API accepted is refused
     * here), and comes near it: non-ASCII text, characters JSON escapes, headers, tags, lists and base64.
     */
    @Test
    void theEstimateIsALowerBoundOfTheRequestsJsonAndCloseToIt() {
        byte[] file = "%PDF-1.7 ...".repeat(300).getBytes(StandardCharsets.US_ASCII);
        MailRequest mail = new MailRequest().from("Jörg <joerg@sender.example>").to("a@example.com", "b@example.com")
                .cc("c@example.com").subject("Grüße \"quoted\"").text("Zeile 1\nZeile 2 😀").html("<p>Hallo</p>")
                .header("X-Order", "4711").campaign("spring-sale").reference("order-4711").tags("receipt", "shop")
                .attach("a.pdf", "application/pdf", file);
        String json = "{\"from\":\"Jörg <joerg@sender.example>\",\"to\":[\"a@example.com\",\"b@example.com\"],"
                + "\"cc\":[\"c@example.com\"],\"subject\":\"Grüße \\\"quoted\\\"\",\"text\":\"Zeile 1\\nZeile 2 😀\","
                + "\"html\":\"<p>Hallo</p>\",\"headers\":{\"X-Order\":\"4711\"},\"attachments\":[{\"filename\":\"a.pdf\","
                + "\"contentType\":\"application/pdf\",\"content\":\"" + Base64.getEncoder().withoutPadding().encodeToString(file)
                + "\"}],\"reference\":\"order-4711\",\"campaign\":\"spring-sale\",\"tags\":[\"receipt\",\"shop\"]}";
        long jsonBytes = json.getBytes(StandardCharsets.UTF_8).length;

        long estimate = RequestSizeBudget.estimate(mail);

        assertThat(estimate).isLessThanOrEqualTo(jsonBytes).isGreaterThan(jsonBytes * 95 / 100);
        assertThatCode(() -> RequestSizeBudget.of(jsonBytes).check(mail)).doesNotThrowAnyException();
    }

    @Test
    void theCountStopsAtTheBudgetSoAHugeCallCostsNoMoreThanTheBudget() {
        RequestSizeBudget cut = RequestSizeBudget.of(16L * 1024 * 1024);
        byte[] twelveMiB = new byte[12 * 1024 * 1024];
        Attachment shared = new Attachment("big.bin", null, twelveMiB); // one array: 1,000 mails of 12 MiB "each"
        List<MailRequest> batch = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            MailRequest mail = new MailRequest().from("shop@sender.example").to("x@example.com").subject("s").text("t");
            mail.setAttachments(List.of(shared));
            batch.add(mail);
        }
        List<String> manyRecipients = Collections.nCopies(Integer.MAX_VALUE / 2, "someone@example.com"); // no memory

        assertThatThrownBy(() -> cut.checkAll(batch)).isInstanceOfSatisfying(InvalidMailException.class,
                e -> assertThat(e.getErrors().get(0).getField()).isEqualTo("[0].attachments")); // 16 MiB of base64 and more
        MailRequest crowded = new MailRequest().from("shop@sender.example").subject("s").text("t");
        crowded.setTo(manyRecipients);
        assertTimeoutOf1s(() -> assertThatThrownBy(() -> cut.check(crowded)).isInstanceOfSatisfying(InvalidMailException.class,
                e -> assertThat(e.getErrors().get(0).getField()).isEqualTo("to")));
    }

    static void assertTimeoutOf1s(Runnable check) {
        long start = System.nanoTime();
        check.run();
        assertThat(System.nanoTime() - start).as("stopped at the budget, not after a billion recipients")
                .isLessThan(1_000_000_000L);
    }
}
