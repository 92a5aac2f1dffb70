package dev.mailqueue.unsubscribe.boundary;

import dev.mailqueue.unsubscribe.control.UnsubscribeToken;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The unsubscribe page: it asks before and confirms after, and what a token names never becomes markup. */
class UnsubscribePageTest {

    @Test
    void beforeItAsksWithAButtonThatPostsToTheSameLink() {
        String page = UnsubscribePage.of(new UnsubscribeToken("news", "pat@example.org", java.time.Instant.MAX), false);

        assertThat(page).contains("<form method=\"post\">", "name=\"List-Unsubscribe\" value=\"One-Click\"",
                "pat@example.org", "news").doesNotContain("<script", "action=");
    }

    @Test
    void afterItConfirms() {
        assertThat(UnsubscribePage.of(new UnsubscribeToken("news", "pat@example.org", java.time.Instant.MAX), true))
                .contains("Unsubscribed", "pat@example.org").doesNotContain("<form");
    }

    @Test
    void anAddressWithMarkupInItsQuotedLocalPartIsShownAsText() {
        String page = UnsubscribePage.of(new UnsubscribeToken("news", "\"<script>alert('x')</script>&\"@example.org", java.time.Instant.MAX), false);

        assertThat(page).doesNotContain("<script>").contains("&quot;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;&quot;@example.org");
    }
}
