package dev.mailqueue.bounce.control;

import dev.mailqueue.settings.control.ReportLimits;
import dev.mailqueue.queue.control.BounceReport;
import jakarta.mail.Session;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a hostile message can make the intake spend: the structure is measured before Jakarta Mail parses it,
 * and a message past a limit is refused as UNRECOGNISED without being parsed, however many parts it has.
 */
class MimeStructureTest {

    private static final Session SESSION = Session.getInstance(new Properties());

    /** The message of the security review: 200,000 empty parts in 1.4 MB, which took 31 s of CPU to classify. */
    static byte[] manyParts(int parts) {
        StringBuilder raw = new StringBuilder("From: mailer-daemon@mta.test\r\nMessage-ID: <many@mta.test>\r\n"
                + "MIME-Version: 1.0\r\nContent-Type: multipart/report; report-type=delivery-status; boundary=\"b\"\r\n\r\n");
        for (int i = 0; i < parts; i++) {
            raw.append("--b\r\n\r\n");
        }
        return raw.append("--b--\r\n").toString().getBytes(StandardCharsets.US_ASCII);
    }

    static byte[] nested(int depth) {
        StringBuilder raw = new StringBuilder("From: x@mta.test\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"b0\"\r\n\r\n");
        for (int i = 1; i < depth; i++) {
            raw.append("--b").append(i - 1).append("\r\nContent-Type: multipart/mixed; boundary=\"b").append(i).append("\"\r\n\r\n");
        }
        raw.append("--b").append(depth - 1).append("\r\nContent-Type: text/plain\r\n\r\ndeep\r\n");
        for (int i = depth - 1; i >= 0; i--) {
            raw.append("--b").append(i).append("--\r\n");
        }
        return raw.toString().getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void aMessageOfTwoHundredThousandPartsIsRefusedUnparsed() {
        BounceReport report = BounceClassifier.classify(SESSION, manyParts(200_000), null, ReportLimits.DEFAULT);

        assertThat(report.kind()).isEqualTo(BounceReport.Kind.UNRECOGNISED);
        assertThat(report.summary()).startsWith(BounceClassifier.REFUSED).contains("more than 100 MIME parts")
                .contains("mailqueue.bounce.max-parts");
        assertThat(report.recipients()).isEmpty();
    }

    @Test
    void theLimitsAreTheSettingsValues() {
        ReportLimits three = new ReportLimits(1 << 20, 3, 8, 100);
        assertThat(MimeStructure.problem(manyParts(3), three)).isNull();
        assertThat(MimeStructure.problem(manyParts(4), three)).contains("more than 3 MIME parts");
        assertThat(MimeStructure.problem(nested(7), ReportLimits.DEFAULT)).as("top message and 7 multiparts").isNull();
        assertThat(MimeStructure.problem(nested(8), ReportLimits.DEFAULT)).contains("nested deeper than 8");
    }

    @Test
    void aHeaderLineBeyondItsLimitIsRefused() {
        byte[] raw = ("X-Long: " + "x".repeat(MimeStructure.MAX_LINE_OCTETS + 10) + "\r\n\r\nbody\r\n").getBytes(StandardCharsets.US_ASCII);
        assertThat(MimeStructure.problem(raw, ReportLimits.DEFAULT)).contains("cannot be read");
    }

    @Test
    void realReportsPass() throws IOException {
        for (String fixture : new String[]{"postfix-failed.eml", "postfix-failed-two.eml", "postfix-delayed.eml"}) {
            try (InputStream in = getClass().getResourceAsStream(fixture)) {
                assertThat(MimeStructure.problem(in.readAllBytes(), ReportLimits.DEFAULT)).as(fixture).isNull();
            }
        }
    }

    @Test
    void hostileFieldsAreDroppedOrClippedSoThatTheReportStillRecords() throws IOException {
        byte[] raw;
        try (InputStream in = getClass().getResourceAsStream("postfix-failed.eml")) {
            raw = new String(in.readAllBytes(), StandardCharsets.US_ASCII)
                    .replaceFirst("(?m)^Status: .*$", "Status: 5.1.1.1.1.1.1.1 (longer than the column)")
                    .replaceFirst("(?m)^Diagnostic-Code: .*$", "Diagnostic-Code: smtp; 550 " + "x".repeat(5_000))
                    .getBytes(StandardCharsets.US_ASCII);
        }
        BounceReport report = BounceClassifier.classify(SESSION, raw);

        assertThat(report.kind()).isEqualTo(BounceReport.Kind.FAILED);
        assertThat(report.recipients()).singleElement().satisfies(r -> {
            assertThat(r.status()).as("not an RFC 3464 status: dropped").isNull();
            assertThat(r.diagnostic()).hasSize(ReportFields.TEXT_CHARS);
        });
    }

    @Test
    void aDsnOfManyBlocksIsReadOnlyUpToTheLimit() {
        StringBuilder blocks = new StringBuilder("Reporting-MTA: dns; mta.test\r\n");
        for (int i = 0; i < 500; i++) {
            blocks.append("\r\nFinal-Recipient: rfc822; r").append(i).append("@example.org\r\nAction: failed\r\nStatus: 5.1.1\r\n");
        }
        byte[] raw = ("From: mailer-daemon@mta.test\r\nMessage-ID: <blocks@mta.test>\r\nMIME-Version: 1.0\r\n"
                + "Content-Type: multipart/report; report-type=delivery-status; boundary=\"b\"\r\n\r\n"
                + "--b\r\nContent-Type: text/plain\r\n\r\nFailed.\r\n"
                + "--b\r\nContent-Type: message/delivery-status\r\n\r\n" + blocks + "\r\n--b--\r\n").getBytes(StandardCharsets.US_ASCII);

        BounceReport report = BounceClassifier.classify(SESSION, raw, null, new ReportLimits(1 << 20, 100, 8, 20));

        assertThat(report.recipients()).hasSize(20);
    }
}
