package dev.mailqueue.unsubscribe.boundary;

import dev.mailqueue.unsubscribe.control.UnsubscribeToken;

/**
 * The small HTML page of an unsubscribe link: before, a question and a button that posts to the same
 * link; after, the confirmation. No script, no outside resources; the address and list are escaped.
 */
final class UnsubscribePage {

    private UnsubscribePage() {
    }

    /**
     * @param link what the token names
     * @param done true once the address is unsubscribed
     * @return a complete HTML document
     */
    static String of(UnsubscribeToken link, boolean done) {
        String address = escape(link.address());
        String list = escape(link.list());
        String body = done
                ? "<h1>Unsubscribed</h1>\n<p><strong>" + address + "</strong> will get no more mail of the list <strong>"
                + list + "</strong>.</p>\n"
                : "<h1>Unsubscribe?</h1>\n<p>Stop sending mail of the list <strong>" + list + "</strong> to <strong>"
                + address + "</strong>?</p>\n<form method=\"post\">\n"
                + "<input type=\"hidden\" name=\"List-Unsubscribe\" value=\"One-Click\">\n"
                + "<button type=\"submit\">Unsubscribe</button>\n</form>\n";
        return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                + "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                + "<title>" + (done ? "Unsubscribed" : "Unsubscribe") + "</title>\n</head>\n<body>\n" + body
                + "</body>\n</html>\n";
    }

    /** @return the text with the five characters that HTML gives meaning escaped */
    static String escape(String text) {
        StringBuilder out = new StringBuilder(text.length() + 16);
        for (int i = 0; i < text.length(); i++) {
            char ch = text.charAt(i);
            switch (ch) {
                case '&' -> out.append("&amp;");
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&#39;");
                default -> out.append(ch);
            }
        }
        return out.toString();
    }
}
