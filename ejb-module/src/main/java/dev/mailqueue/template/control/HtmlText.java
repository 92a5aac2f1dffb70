package dev.mailqueue.template.control;

import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.jsoup.nodes.Element;
import org.jsoup.nodes.Node;
import org.jsoup.nodes.TextNode;
import org.jsoup.select.NodeVisitor;

import java.util.Set;

/**
 * The text part of a mail whose template has HTML only: the HTML parsed by jsoup (as a browser would, so broken
 * markup still reads), its text with a line break after each block, a blank line after each paragraph and
 * heading, list items as "- ", and a link's address after its words when they differ. Scripts and styles are
 * left out. A multipart/alternative mail with a text part is what spam filters and text-only readers expect.
 */
public final class HtmlText {

    private static final Set<String> BLOCKS = Set.of("div", "tr", "table", "ul", "ol", "blockquote", "pre", "section",
            "article", "header", "footer", "address", "center", "dl", "dt", "dd", "form");
    private static final Set<String> PARAGRAPHS = Set.of("p", "h1", "h2", "h3", "h4", "h5", "h6", "hr");
    private static final Set<String> SKIPPED = Set.of("script", "style", "head", "title", "template");

    private HtmlText() {
    }

    /**
     * @param html an HTML document or fragment
     * @return its readable text: lines joined by {@code \n}, runs of blank lines kept to one, no trailing space
     */
    public static String of(String html) {
        Document document = Jsoup.parse(html);
        StringBuilder out = new StringBuilder();
        document.body().traverse(new NodeVisitor() {
            private int skipping;

            @Override
            public void head(Node node, int depth) {
                if (node instanceof Element e && SKIPPED.contains(e.normalName())) {
                    skipping++;
                }
                if (skipping > 0) {
                    return;
                }
                if (node instanceof TextNode text) {
                    String words = text.text().replaceAll("\\s+", " ");
                    if (out.isEmpty() || out.charAt(out.length() - 1) == '\n') {
                        words = words.stripLeading();
                    }
                    out.append(words);
                } else if (node instanceof Element e) {
                    switch (e.normalName()) {
                        case "br" -> out.append('\n');
                        case "li" -> out.append(lineStart(out) ? "" : "\n").append("- ");
                        default -> {
                            if (PARAGRAPHS.contains(e.normalName())) {
                                blankLine(out);
                            } else if (BLOCKS.contains(e.normalName())) {
                                breakLine(out);
                            }
                        }
                    }
                }
            }

            @Override
            public void tail(Node node, int depth) {
                if (node instanceof Element e && SKIPPED.contains(e.normalName())) {
                    skipping--;
                    return;
                }
                if (skipping > 0 || !(node instanceof Element e)) {
                    return;
                }
                if (e.normalName().equals("a")) {
                    String href = e.attr("href").strip();
                    if (!href.isEmpty() && !href.startsWith("#") && !href.equals(e.text().strip())) {
                        out.append(" <").append(href).append('>');
                    }
                } else if (PARAGRAPHS.contains(e.normalName())) {
                    blankLine(out);
                } else if (BLOCKS.contains(e.normalName()) || e.normalName().equals("li")) {
                    breakLine(out);
                }
            }
        });
        return out.toString().replaceAll("[ \\t]+\\n", "\n").replaceAll("\\n{3,}", "\n\n").strip();
    }

    private static boolean lineStart(StringBuilder out) {
        return out.isEmpty() || out.charAt(out.length() - 1) == '\n';
    }

    private static void blankLine(StringBuilder out) {
        breakLine(out);
        if (!out.isEmpty() && (out.length() < 2 || out.charAt(out.length() - 2) != '\n')) {
            out.append('\n');
        }
    }

    private static void breakLine(StringBuilder out) {
        if (!lineStart(out)) {
            out.append('\n');
        }
    }
}
