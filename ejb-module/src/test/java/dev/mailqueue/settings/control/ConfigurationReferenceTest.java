package dev.mailqueue.settings.control;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The configuration reference, {@code docs/configuration.md}, cannot drift from the files that hold the
 * defaults: {@code META-INF/microprofile-config.properties} (the queue's settings, the one place their defaults
 * are written), and for the server's settings {@code liberty/server.xml} and {@code liberty/db/<database>.xml}.
 * <p>
 * The convention it checks: a table of the docs whose header starts with {@code Property} has one setting per
 * row, its name alone in backticks in the first cell. A {@code Default} column holds the value exactly as
 * {@code microprofile-config.properties} or {@code server.xml} writes it, in backticks; {@code (empty)} for a
 * value written empty; or {@code (none)} when neither file writes a default (names with a {@code <name>} part
 * always). Columns {@code PostgreSQL} and {@code MariaDB} do the same for {@code liberty/db/postgresql.xml} and
 * {@code liberty/db/mariadb.xml}. Other columns are free text. So the test fails when a setting of those files
 * is missing from {@code configuration.md}, when a table names a setting no file has without marking it
 * {@code (none)} (a renamed or removed setting), when a table says {@code (none)} for a setting a file has,
 * when a default differs, and when a name is written with a default in two of the files. Tables of the other
 * guides ({@code docs/*.md}) that follow the convention are checked against the files the same way, and every
 * {@code mailqueue.*} name {@code configuration.md} mentions must be one of its rows.
 */
class ConfigurationReferenceTest {

    private static final Path MODULE = Path.of(System.getProperty("user.dir"));
    private static final Path DOCS = MODULE.resolve("../docs").normalize();
    private static final Path REFERENCE = DOCS.resolve("configuration.md");
    private static final Path PROPERTIES = MODULE.resolve("src/main/resources/META-INF/microprofile-config.properties");
    private static final Path LIBERTY = MODULE.resolve("../liberty").normalize();

    private static final String NONE = "(none)";
    private static final String EMPTY = "(empty)";
    private static final Pattern VARIABLE = Pattern.compile("<variable\\s+name=\"([^\"]+)\"\\s+defaultValue=\"([^\"]*)\"\\s*/>");
    private static final Pattern XML_COMMENT = Pattern.compile("<!--.*?-->", Pattern.DOTALL);
    private static final Pattern NAME_CELL = Pattern.compile("`([^`\\s]+)`");
    private static final Pattern VALUE_CELL = Pattern.compile("`([^`]*)`");
    private static final Pattern MENTIONED = Pattern.compile("`(mailqueue\\.[A-Za-z0-9.<>_-]*[A-Za-z0-9>])`");

    /** The file that holds each default of the Default column: microprofile-config.properties or server.xml. */
    private static final Map<String, String> ORIGIN = new LinkedHashMap<>();

    /** A row of a settings table: where it is, the setting's name, and its cells by column header. */
    private record Row(String where, String name, Map<String, String> cells) {
    }

    @Test
    void everySettingOfTheFilesIsInTheReferenceWithItsDefault() throws IOException {
        Map<String, Map<String, String>> sources = sources();
        List<String> problems = new ArrayList<>();
        List<Row> rows = rows(REFERENCE, problems);
        problems.addAll(check(rows, sources));

        Set<String> documented = new LinkedHashSet<>();
        for (Row row : rows) {
            if (!documented.add(row.name())) {
                problems.add(row.where() + ": " + row.name() + " is listed twice");
            }
        }
        sources.forEach((column, defaults) -> defaults.keySet().stream()
                .filter(name -> !documented.contains(name))
                .forEach(name -> problems.add(REFERENCE.getFileName() + ": " + name + " is missing (its default is in "
                        + describe(column, name) + ")")));

        Matcher mentioned = MENTIONED.matcher(Files.readString(REFERENCE));
        while (mentioned.find()) {
            if (!documented.contains(mentioned.group(1))) {
                problems.add(REFERENCE.getFileName() + ": " + mentioned.group(1) + " is mentioned but is no row of a table");
            }
        }
        assertThat(problems).as("drift between %s and the files that hold the defaults", REFERENCE).isEmpty();
    }

    @Test
    void theGuidesTablesOfSettingsAgreeWithTheFiles() throws IOException {
        Map<String, Map<String, String>> sources = sources();
        List<String> problems = new ArrayList<>();
        try (Stream<Path> guides = Files.list(DOCS)) {
            for (Path guide : guides.filter(p -> p.toString().endsWith(".md")).sorted().toList()) {
                problems.addAll(check(rows(guide, problems), sources));
            }
        }
        assertThat(problems).as("drift between the tables of docs/ and the files that hold the defaults").isEmpty();
    }

    /** Each table column that states defaults, with the defaults of the file(s) it is checked against. */
    private static Map<String, Map<String, String>> sources() throws IOException {
        Map<String, String> defaults = new LinkedHashMap<>();
        Properties properties = new Properties();
        try (Reader in = Files.newBufferedReader(PROPERTIES, StandardCharsets.UTF_8)) {
            properties.load(in);
        }
        properties.stringPropertyNames().stream().sorted().forEach(name -> {
            defaults.put(name, properties.getProperty(name));
            ORIGIN.put(name, PROPERTIES.getFileName().toString());
        });
        for (Map.Entry<String, String> variable : variables(LIBERTY.resolve("server.xml")).entrySet()) {
            assertThat(defaults).as("%s has a default in both %s and server.xml", variable.getKey(), PROPERTIES.getFileName())
                    .doesNotContainKey(variable.getKey());
            defaults.put(variable.getKey(), variable.getValue());
            ORIGIN.put(variable.getKey(), "liberty/server.xml");
        }
        Map<String, Map<String, String>> sources = new LinkedHashMap<>();
        sources.put("Default", defaults);
        sources.put("PostgreSQL", variables(LIBERTY.resolve("db/postgresql.xml")));
        sources.put("MariaDB", variables(LIBERTY.resolve("db/mariadb.xml")));
        return sources;
    }

    /** @return the file a column's default of {@code name} is checked against */
    private static String describe(String column, String name) {
        return switch (column) {
            case "Default" -> ORIGIN.getOrDefault(name, "microprofile-config.properties or liberty/server.xml");
            case "PostgreSQL" -> "liberty/db/postgresql.xml";
            case "MariaDB" -> "liberty/db/mariadb.xml";
            default -> throw new IllegalArgumentException(column);
        };
    }

    /** @return the {@code <variable name=".." defaultValue=".."/>}s of a Liberty configuration file, outside comments */
    private static Map<String, String> variables(Path xml) throws IOException {
        Map<String, String> variables = new LinkedHashMap<>();
        Matcher m = VARIABLE.matcher(XML_COMMENT.matcher(Files.readString(xml)).replaceAll(""));
        while (m.find()) {
            variables.put(m.group(1), m.group(2));
        }
        return variables;
    }

    /** @return the rows of the tables of {@code markdown} whose header starts with "Property"; adds malformed rows to {@code problems} */
    private static List<Row> rows(Path markdown, List<String> problems) throws IOException {
        List<String> lines = Files.readAllLines(markdown, StandardCharsets.UTF_8);
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i + 1 < lines.size(); i++) {
            List<String> header = cells(lines.get(i));
            if (header.isEmpty() || !header.get(0).equals("Property") || !lines.get(i + 1).startsWith("|---")) {
                continue;
            }
            String table = markdown.getFileName() + ":" + (i + 1);
            if (header.stream().noneMatch(h -> h.equals("Default") || h.equals("PostgreSQL") || h.equals("MariaDB"))) {
                problems.add(table + ": a table of settings needs a Default (or PostgreSQL, MariaDB) column: " + header);
            }
            int r = i + 2;
            for (; r < lines.size() && lines.get(r).startsWith("|"); r++) {
                String where = markdown.getFileName() + ":" + (r + 1);
                List<String> cells = cells(lines.get(r));
                Matcher name = NAME_CELL.matcher(cells.get(0));
                if (cells.size() != header.size() || !name.matches()) {
                    problems.add(where + ": expected " + header.size() + " cells, the first a setting's name alone in backticks: "
                            + lines.get(r));
                    continue;
                }
                Map<String, String> byColumn = new LinkedHashMap<>();
                for (int c = 1; c < header.size(); c++) {
                    byColumn.put(header.get(c), cells.get(c));
                }
                rows.add(new Row(where, name.group(1), byColumn));
            }
            i = r - 1;
        }
        return rows;
    }

    /** @return the cells of a table line, trimmed, split at the pipes outside backticks; empty for a line that is no table row */
    private static List<String> cells(String line) {
        List<String> cells = new ArrayList<>();
        String trimmed = line.strip();
        if (!trimmed.startsWith("|") || !trimmed.endsWith("|")) {
            return cells;
        }
        StringBuilder cell = new StringBuilder();
        boolean code = false;
        for (int i = 1; i < trimmed.length() - 1; i++) {
            char c = trimmed.charAt(i);
            if (c == '`') {
                code = !code;
            }
            if (c == '|' && !code) {
                cells.add(cell.toString().strip());
                cell.setLength(0);
            } else {
                cell.append(c);
            }
        }
        cells.add(cell.toString().strip());
        return cells;
    }

    /** @return what each row's default cells say that their files do not */
    private static List<String> check(List<Row> rows, Map<String, Map<String, String>> sources) {
        List<String> problems = new ArrayList<>();
        for (Row row : rows) {
            row.cells().forEach((column, cell) -> {
                Map<String, String> defaults = sources.get(column);
                if (defaults == null) {
                    return; // a column of free text
                }
                if (column.equals("Default") && (sources.get("PostgreSQL").containsKey(row.name())
                        || sources.get("MariaDB").containsKey(row.name()))) {
                    problems.add(row.where() + ": " + row.name() + " is a database setting: list it in a table with"
                            + " PostgreSQL and MariaDB columns");
                    return;
                }
                String actual = defaults.get(row.name());
                String written;
                if (cell.equals(NONE)) {
                    written = null;
                } else if (cell.equals(EMPTY)) {
                    written = "";
                } else {
                    Matcher value = VALUE_CELL.matcher(cell);
                    if (!value.matches()) {
                        problems.add(row.where() + ": the " + column + " of " + row.name()
                                + " must be the value in backticks, " + EMPTY + " or " + NONE + ", not: " + cell);
                        return;
                    }
                    written = value.group(1);
                }
                if (written == null && actual != null) {
                    problems.add(row.where() + ": " + row.name() + " says " + NONE + ", but " + describe(column, row.name())
                            + " has the default \"" + actual + "\"");
                } else if (written != null && actual == null) {
                    problems.add(row.where() + ": " + row.name() + " has no default in " + describe(column, row.name())
                            + " (renamed or removed?); the doc says \"" + written + "\" (write " + NONE + " if it has none)");
                } else if (written != null && !written.equals(actual)) {
                    problems.add(row.where() + ": the " + column + " of " + row.name() + " is \"" + actual + "\" in "
                            + describe(column, row.name()) + ", the doc says \"" + written + "\"");
                }
            });
        }
        return problems;
    }
}
