package dev.mailqueue.template.control;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The text part made from an HTML part: readable lines, links kept, scripts and styles left out. */
class HtmlTextTest {

    @Test
    void blocksBecomeLinesAndParagraphsBlankLines() {
        assertThat(HtmlText.of("<h1>Order 7</h1><p>Thank you,<br>Jane.</p><div>Shipped</div><div>Today</div>"))
                .isEqualTo("Order 7\n\nThank you,\nJane.\n\nShipped\nToday");
    }

    @Test
    void listItemsAndLinksAreKeptReadable() {
        assertThat(HtmlText.of("<ul><li>One</li><li><a href=\"https://x.example/2\">Two</a></li>"
                + "<li><a href=\"https://x.example/3\">https://x.example/3</a></li></ul>"))
                .isEqualTo("- One\n- Two <https://x.example/2>\n- https://x.example/3");
    }

    @Test
    void scriptsStylesAndTheHeadAreLeftOutAndBrokenMarkupStillReads() {
        assertThat(HtmlText.of("<html><head><title>T</title><style>p{color:red}</style></head><body>"
                + "<script>alert(1)</script><p>Hello   <b>world"))
                .isEqualTo("Hello world");
    }
}
