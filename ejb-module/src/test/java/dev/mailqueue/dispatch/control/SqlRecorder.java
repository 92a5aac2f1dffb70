package dev.mailqueue.dispatch.control;

import org.eclipse.persistence.logging.AbstractSessionLog;
import org.eclipse.persistence.logging.SessionLog;
import org.eclipse.persistence.logging.SessionLogEntry;

import java.util.ArrayList;
import java.util.List;

/**
 * An EclipseLink session log ({@code eclipselink.logging.logger}) that keeps every SQL statement
 * EclipseLink sends, as it sends it, so a test can check the real SQL rather than the JPQL. Other
 * categories at WARNING or worse go to stderr. EclipseLink creates the instance itself, so the
 * statements are kept in one static list; tests run one at a time and {@link #clear()} it first.
 */
public class SqlRecorder extends AbstractSessionLog {

    private static final List<String> STATEMENTS = new ArrayList<>();

    @Override
    public void log(SessionLogEntry entry) {
        if (SessionLog.SQL.equals(entry.getNameSpace())) {
            synchronized (STATEMENTS) {
                STATEMENTS.add(entry.getMessage());
            }
        } else if (entry.getLevel() >= SessionLog.WARNING) {
            System.err.println("EclipseLink " + entry.getNameSpace() + ": " + formatMessage(entry)
                    + (entry.hasException() ? " " + entry.getException() : ""));
        }
    }

    /** Forgets the statements recorded so far. */
    static void clear() {
        synchronized (STATEMENTS) {
            STATEMENTS.clear();
        }
    }

    /** @return the statements recorded since the last {@link #clear()}, in the order they were sent */
    static List<String> statements() {
        synchronized (STATEMENTS) {
            return List.copyOf(STATEMENTS);
        }
    }
}
