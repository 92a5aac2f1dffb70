package dev.mailqueue.http.control;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The header fields of an attachment's download: RFC 6266 / RFC 8187 file names, and the stored type. */
class DownloadsTest {

    @Test
    void theFileNameIsUtf8PercentEncodedExceptAttrChars() {
        assertThat(Downloads.contentDisposition("report-2026_v1.pdf"))
                .isEqualTo("attachment; filename*=UTF-8''report-2026_v1.pdf");
        assertThat(Downloads.contentDisposition("Grüße März.txt"))
                .isEqualTo("attachment; filename*=UTF-8''Gr%C3%BC%C3%9Fe%20M%C3%A4rz.txt");
        assertThat(Downloads.contentDisposition("a\"b;c=d'e%f,g*.txt"))
                .as("quotes, separators and the percent sign cannot end the value or add a parameter")
                .isEqualTo("attachment; filename*=UTF-8''a%22b%3Bc%3Dd%27e%25f%2Cg%2A.txt");
        assertThat(Downloads.contentDisposition("\u65e5\u672c.png")).isEqualTo("attachment; filename*=UTF-8''%E6%97%A5%E6%9C%AC.png");
        assertThat(Downloads.contentDisposition("x\r\nSet-Cookie: y"))
                .isEqualTo("attachment; filename*=UTF-8''x%0D%0ASet-Cookie%3A%20y");
    }

    @Test
    void theStoredTypeIsSentWhenItIsAMediaType() {
        assertThat(Downloads.contentType("application/pdf")).isEqualTo("application/pdf");
        assertThat(Downloads.contentType("text/plain; charset=UTF-8")).isEqualTo("text/plain; charset=UTF-8");
        assertThat(Downloads.contentType("not a type")).isEqualTo("application/octet-stream");
        assertThat(Downloads.contentType("text/html\r\nX-Evil: 1")).isEqualTo("application/octet-stream");
        assertThat(Downloads.contentType(null)).isEqualTo("application/octet-stream");
    }
}
