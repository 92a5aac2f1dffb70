package dev.mailqueue.architecture;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code docs/layout.md} lists every package of the EJB and web modules, and nothing else: each folder under
 * {@code src/main/java/dev/mailqueue/} of a module (a feature and its {@code boundary}, {@code control},
 * {@code entity}) is a row of that module's table, named relative to {@code dev.mailqueue} with dots
 * ({@code account.control}), alone in backticks in the row's first cell. The test fails naming each folder
 * without a row, each row whose folder is gone, and each name listed twice.
 */
class LayoutDocTest {

    private static final Path MODULE = Path.of(System.getProperty("user.dir"));
    private static final Path ROOT = MODULE.resolve("..").normalize();
    private static final Path LAYOUT = ROOT.resolve("docs/layout.md");

    /** The section heading of each module's table in layout.md, and the module's folder. */
    private static final Map<String, String> SECTIONS = Map.of("## EJB module", "ejb-module", "## Web module", "web-module");

    private static final Pattern ROW = Pattern.compile("^\\|\\s*`([a-z0-9_.]+)`\\s*\\|");

    @Test
    void everyPackageFolderHasItsRowAndEveryRowItsFolder() throws IOException {
        Map<String, List<String>> rows = rowsBySection(Files.readAllLines(LAYOUT, StandardCharsets.UTF_8));
        List<String> problems = new ArrayList<>();
        SECTIONS.forEach((heading, module) -> {
            List<String> listed = rows.get(heading);
            if (listed == null) {
                problems.add("layout.md has no section '" + heading + "' for " + module);
                return;
            }
            Path sources = ROOT.resolve(module).resolve("src/main/java/dev/mailqueue");
            Set<String> folders = packageFolders(sources);
            Set<String> seen = new TreeSet<>();
            for (String name : listed) {
                if (!seen.add(name)) {
                    problems.add(heading + ": " + name + " is listed twice");
                }
            }
            folders.stream().filter(f -> !seen.contains(f))
                    .forEach(f -> problems.add(heading + ": no row for " + module + "/src/main/java/dev/mailqueue/"
                            + f.replace('.', '/')));
            seen.stream().filter(s -> !folders.contains(s))
                    .forEach(s -> problems.add(heading + ": " + s + " is listed, but " + module
                            + "/src/main/java/dev/mailqueue/" + s.replace('.', '/') + " does not exist"));
        });
        assertThat(problems).as("docs/layout.md against the package folders").isEmpty();
    }

    /** @return the first-cell names of the table rows under each {@code ## } heading, in order */
    private static Map<String, List<String>> rowsBySection(List<String> lines) {
        Map<String, List<String>> rows = new LinkedHashMap<>();
        List<String> current = null;
        for (String line : lines) {
            if (line.startsWith("## ")) {
                current = rows.computeIfAbsent(line.strip(), h -> new ArrayList<>());
                continue;
            }
            Matcher row = ROW.matcher(line);
            if (current != null && row.find()) {
                current.add(row.group(1));
            }
        }
        return rows;
    }

    /** @return every folder below {@code sources}, as a package name relative to {@code dev.mailqueue} */
    private static Set<String> packageFolders(Path sources) {
        assertThat(sources).as("the module's sources").isDirectory();
        try (Stream<Path> tree = Files.walk(sources)) {
            Set<String> folders = new TreeSet<>();
            tree.filter(Files::isDirectory).filter(p -> !p.equals(sources))
                    .forEach(p -> folders.add(sources.relativize(p).toString().replace(p.getFileSystem().getSeparator(), ".")));
            return folders;
        } catch (IOException e) {
            throw new IllegalStateException("cannot walk " + sources, e);
        }
    }
}
