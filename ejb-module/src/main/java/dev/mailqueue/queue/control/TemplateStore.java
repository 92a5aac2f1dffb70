package dev.mailqueue.queue.control;

import dev.mailqueue.api.TemplateText;
import dev.mailqueue.api.TemplateView;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Stored templates, rows of MAIL_TEMPLATE: one per name, version and locale. A version is written once, whole,
 * and never changed; the highest version of a name is the one mail is rendered from. Every method runs in the
 * caller's transaction.
 *
 * <p>A version number is never used twice for a name: deleting a template deletes its versions but leaves one
 * row, a tombstone with the locale {@value #DELETED} and no parts, at the highest version the name had, so the
 * next template stored under that name continues from there (version 4 after versions 1 to 3 were deleted), and
 * a name, a version and a locale always mean the same source on every server. A tombstone is never read as a
 * template: a name whose highest version is a tombstone has no template.
 */
@ApplicationScoped
public class TemplateStore {

    /** The locale of a tombstone row: no BCP 47 tag, so never a template's locale. */
    static final String DELETED = "~deleted";

    private static final String COLUMNS = "NAME, VERSION, LOCALE, IS_DEFAULT, SUBJECT, TEXT_BODY, HTML_BODY,"
            + " CREATED_AT, CREATED_BY";

    @Inject
    QueueTables tables;

    /**
     * @param tables the queue's tables, e.g. on a data source of a test
     * @return a store on them, for use outside a container
     */
    public static TemplateStore on(QueueTables tables) {
        TemplateStore store = new TemplateStore();
        store.tables = tables;
        return store;
    }

    /**
     * Stores the next version of a template: 1 for a name never used, else one more than the highest the name
     * had, deleted or not.
     *
     * @param name          the template's name
     * @param defaultLocale the tag of its default locale, one of {@code locales}
     * @param locales       its locales' sources, at least one
     * @param now           now
     * @param by            the user who stores it
     * @return the version stored
     * @throws StoreException when the database fails, or another version of the same name was stored at the same
     *                        time (the primary key refuses the second)
     */
    public TemplateView store(String name, String defaultLocale, List<TemplateText> locales, Instant now, String by) {
        try (Connection c = tables.connect()) {
            int version;
            try (PreparedStatement s = c.prepareStatement("SELECT MAX(VERSION) FROM MAIL_TEMPLATE WHERE NAME = ?")) {
                s.setString(1, name);
                try (ResultSet r = s.executeQuery()) {
                    version = r.next() ? r.getInt(1) + 1 : 1;
                }
            }
            try (PreparedStatement s = c.prepareStatement("INSERT INTO MAIL_TEMPLATE (" + COLUMNS + ")"
                    + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
                for (TemplateText locale : locales) {
                    s.setString(1, name);
                    s.setInt(2, version);
                    s.setString(3, locale.locale());
                    s.setShort(4, (short) (locale.locale().equals(defaultLocale) ? 1 : 0));
                    Sql.setText(s, 5, locale.subject());
                    Sql.setLongText(s, 6, locale.text());
                    Sql.setLongText(s, 7, locale.html());
                    SqlTime.set(s, 8, now);
                    Sql.setText(s, 9, by);
                    s.addBatch();
                }
                s.executeBatch();
            }
            return new TemplateView(name, version, defaultLocale, now, by, List.copyOf(locales));
        } catch (SQLException e) {
            throw new StoreException("could not store template " + name, e);
        }
    }

    /**
     * @param name a template's name
     * @return its newest version, or empty when no template has that name
     * @throws StoreException when the database fails
     */
    public Optional<TemplateView> newest(String name) {
        return read("SELECT " + COLUMNS + " FROM MAIL_TEMPLATE WHERE NAME = ? AND VERSION ="
                + " (SELECT MAX(VERSION) FROM MAIL_TEMPLATE WHERE NAME = ?) ORDER BY LOCALE", name).stream().findFirst();
    }

    /**
     * @return the newest version of every template, by name
     * @throws StoreException when the database fails
     */
    public List<TemplateView> list() {
        return read("SELECT " + COLUMNS + " FROM MAIL_TEMPLATE t WHERE VERSION ="
                + " (SELECT MAX(VERSION) FROM MAIL_TEMPLATE n WHERE n.NAME = t.NAME) ORDER BY NAME, LOCALE", null);
    }

    /**
     * Deletes every version of a template, keeping its highest version number taken (a tombstone), so that the
     * name's next template gets the next number. Mail already rendered from it is not touched.
     *
     * @param name a template's name
     * @param now  now
     * @param by   the user who deletes it
     * @return true when there was such a template
     * @throws StoreException when the database fails, or the same template was deleted at the same time (the
     *                        primary key refuses the second tombstone)
     */
    public boolean delete(String name, Instant now, String by) {
        try (Connection c = tables.connect()) {
            int highest;
            try (PreparedStatement s = c.prepareStatement("SELECT MAX(VERSION) FROM MAIL_TEMPLATE WHERE NAME = ?"
                    + " AND LOCALE <> ?")) {
                s.setString(1, name);
                s.setString(2, DELETED);
                try (ResultSet r = s.executeQuery()) {
                    highest = r.next() ? r.getInt(1) : 0; // SQL NULL, no template: 0
                }
            }
            if (highest == 0) {
                return false;
            }
            // Up to the version read only: a version stored meanwhile by another transaction stays, as stored after.
            try (PreparedStatement s = c.prepareStatement("DELETE FROM MAIL_TEMPLATE WHERE NAME = ? AND VERSION <= ?")) {
                s.setString(1, name);
                s.setInt(2, highest);
                s.executeUpdate();
            }
            try (PreparedStatement s = c.prepareStatement("INSERT INTO MAIL_TEMPLATE (" + COLUMNS + ")"
                    + " VALUES (?, ?, ?, 0, NULL, NULL, NULL, ?, ?)")) {
                s.setString(1, name);
                s.setInt(2, highest);
                s.setString(3, DELETED);
                SqlTime.set(s, 4, now);
                Sql.setText(s, 5, by);
                s.executeUpdate();
            }
            return true;
        } catch (SQLException e) {
            throw new StoreException("could not delete template " + name, e);
        }
    }

    private List<TemplateView> read(String query, String name) {
        try (Connection c = tables.connect(); PreparedStatement s = c.prepareStatement(query)) {
            if (name != null) {
                s.setString(1, name);
                s.setString(2, name);
            }
            Map<String, List<TemplateText>> locales = new LinkedHashMap<>();
            Map<String, TemplateView> heads = new LinkedHashMap<>();
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    String template = r.getString(1);
                    String locale = r.getString(3);
                    if (DELETED.equals(locale)) {
                        continue; // a deleted template's tombstone: no template
                    }
                    locales.computeIfAbsent(template, n -> new ArrayList<>())
                            .add(new TemplateText(locale, r.getString(5), r.getString(6), r.getString(7)));
                    TemplateView head = heads.get(template);
                    if (head == null || r.getShort(4) == 1) {
                        heads.put(template, new TemplateView(template, r.getInt(2), r.getShort(4) == 1 ? locale : null,
                                SqlTime.get(r, 8), r.getString(9), List.of()));
                    }
                }
            }
            List<TemplateView> views = new ArrayList<>(heads.size());
            heads.forEach((template, head) -> views.add(new TemplateView(template, head.version(), head.defaultLocale(),
                    head.createdAt(), head.createdBy(), List.copyOf(locales.get(template)))));
            return views;
        } catch (SQLException e) {
            throw new StoreException("could not read templates", e);
        }
    }
}
