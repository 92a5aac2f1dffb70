package dev.mailqueue.queue.entity;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

/** The queue's one notion of time: UTC wall-clock, as stored in its TIMESTAMP columns. */
public final class Utc {

    private Utc() {
    }

    /** @return the current UTC wall-clock time */
    public static LocalDateTime now() {
        return LocalDateTime.now(ZoneOffset.UTC);
    }

    /** @return the UTC wall-clock time of {@code instant}, or null for null */
    public static LocalDateTime of(Instant instant) {
        return instant == null ? null : LocalDateTime.ofInstant(instant, ZoneOffset.UTC);
    }

    /**
     * @param value a TIMESTAMP column as a native query hands it out (a {@link java.sql.Timestamp} or a
     *              {@link LocalDateTime}, by driver), or null
     * @return it as UTC wall-clock time, or null for null
     */
    public static LocalDateTime ofColumn(Object value) {
        return value instanceof java.sql.Timestamp timestamp ? timestamp.toLocalDateTime() : (LocalDateTime) value;
    }

    /** @return the instant of a UTC wall-clock time, or null for null */
    public static Instant toInstant(LocalDateTime utc) {
        return utc == null ? null : utc.toInstant(ZoneOffset.UTC);
    }
}
