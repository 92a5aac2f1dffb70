package dev.mailqueue.queue.control;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.Instant;
import java.util.Calendar;
import java.util.GregorianCalendar;
import java.util.TimeZone;

/**
 * How the queue writes and reads its TIMESTAMP columns: each holds an instant as its UTC wall-clock time,
 * whatever the time zone of the JVM that wrote it, so servers in different zones agree on due times and
 * leases. Every value is bound and read with an explicit UTC {@link Calendar}
 * ({@link PreparedStatement#setTimestamp(int, Timestamp, Calendar)}), the one way that holds on all the
 * drivers used here: {@code Timestamp.valueOf(LocalDateTime)} moves a UTC wall-clock time inside the
 * JVM zone's spring-forward hour by an hour (checked: 02:30 UTC written from Europe/Berlin on the
 * 29 March 2026 arrives as 03:30), Derby 10.16 refuses {@code java.time} values in
 * {@code setObject}/{@code getObject}, and MariaDB Connector/J 3.5 reads {@code LocalDateTime} through
 * the JVM zone.
 */
public final class SqlTime {

    private static final TimeZone UTC = TimeZone.getTimeZone("UTC");

    private SqlTime() {
    }

    /**
     * @param statement the statement
     * @param index     the parameter, from 1
     * @param instant   the value, or null for SQL NULL
     * @throws SQLException when the driver refuses
     */
    public static void set(PreparedStatement statement, int index, Instant instant) throws SQLException {
        if (instant == null) {
            statement.setNull(index, Types.TIMESTAMP);
        } else {
            statement.setTimestamp(index, Timestamp.from(instant), utc());
        }
    }

    /**
     * @param rows   a result set on a row
     * @param column the column, from 1
     * @return the instant, or null for SQL NULL
     * @throws SQLException when the driver refuses
     */
    public static Instant get(ResultSet rows, int column) throws SQLException {
        Timestamp value = rows.getTimestamp(column, utc());
        return value == null ? null : value.toInstant();
    }

    /**
     * @param rows   a result set on a row
     * @param column the column's label
     * @return the instant, or null for SQL NULL
     * @throws SQLException when the driver refuses
     */
    public static Instant get(ResultSet rows, String column) throws SQLException {
        Timestamp value = rows.getTimestamp(column, utc());
        return value == null ? null : value.toInstant();
    }

    /** A new calendar each time: drivers may change the one they are given. */
    private static Calendar utc() {
        return new GregorianCalendar(UTC);
    }
}
