package dev.mailqueue.schema.control;

import java.util.Locale;

/**
 * The databases the queue has a schema for ({@code sql/<folder>/}), told apart by the JDBC driver's
 * {@link java.sql.DatabaseMetaData#getDatabaseProductName() product name}, so the schema and the claim
 * follow the data source actually configured.
 */
public enum DatabaseKind {
    /** Apache Derby 10.16, embedded; the default. */
    DERBY("derby", false),
    /** PostgreSQL 11+ (tested with 15): the DDL uses CREATE SEQUENCE ... AS BIGINT, the claim sets {@code jit}. */
    POSTGRESQL("postgresql", true),
    /** MariaDB 10.6+ (tested with 10.11): sequences from 10.3, SKIP LOCKED from 10.6. */
    MARIADB("mariadb", true),
    /** Microsoft SQL Server 2012+; DDL written from documentation, untested here. */
    SQLSERVER("sqlserver", false),
    /** Oracle Database 12c+; DDL written from documentation, untested here. */
    ORACLE("oracle", false);

    private final String folder;
    private final boolean skipLocked;

    DatabaseKind(String folder, boolean skipLocked) {
        this.folder = folder;
        this.skipLocked = skipLocked;
    }

    /** @return the folder under {@code sql/} (and {@code db/migration/} on the classpath) */
    public String folder() {
        return folder;
    }

    /** @return true when the claim can use {@code FOR UPDATE SKIP LOCKED} with {@code LIMIT} */
    public boolean skipsLocked() {
        return skipLocked;
    }

    /**
     * @param sequence a sequence of the schema, e.g. {@code MAIL_MESSAGE_SEQ}
     * @return the query that returns its next value as one row of one column
     */
    public String nextValueQuery(String sequence) {
        return switch (this) {
            case DERBY -> "VALUES NEXT VALUE FOR " + sequence;
            case POSTGRESQL -> "SELECT nextval('" + sequence.toLowerCase(Locale.ROOT) + "')";
            case MARIADB, SQLSERVER -> "SELECT NEXT VALUE FOR " + sequence;
            case ORACLE -> "SELECT " + sequence + ".NEXTVAL FROM DUAL";
        };
    }

    /**
     * @param orderedSelect a SELECT ending in its ORDER BY
     * @param rows          most rows wanted, 1 or more
     * @return the same query limited to its first {@code rows} rows, in this database's syntax
     */
    public String firstRows(String orderedSelect, int rows) {
        if (rows < 1) {
            throw new IllegalArgumentException("rows must be 1 or more, was " + rows);
        }
        return switch (this) {
            case POSTGRESQL, MARIADB -> orderedSelect + " LIMIT " + rows;
            case DERBY, SQLSERVER, ORACLE -> orderedSelect + " OFFSET 0 ROWS FETCH NEXT " + rows + " ROWS ONLY";
        };
    }

    /**
     * @param time    a TIMESTAMP expression of the query, at or after the start
     * @param seconds the width of a bucket, 1 or more
     * @return an integer expression: which bucket of that width, counted from 0 at the start, the time falls
     *         in (whole seconds since the start, divided by the width, rounded down); the start is its one
     *         {@code ?}, a TIMESTAMP at a whole second
     */
    public String bucketOf(String time, int seconds) {
        if (seconds < 1) {
            throw new IllegalArgumentException("seconds must be 1 or more, was " + seconds);
        }
        return switch (this) {
            case DERBY -> "({fn TIMESTAMPDIFF(SQL_TSI_SECOND, CAST(? AS TIMESTAMP), " + time + ")} / " + seconds + ")";
            case POSTGRESQL -> "CAST(FLOOR(EXTRACT(EPOCH FROM (" + time + " - CAST(? AS TIMESTAMP))) / " + seconds
                    + ") AS BIGINT)";
            case MARIADB -> "(TIMESTAMPDIFF(SECOND, ?, " + time + ") DIV " + seconds + ")";
            case SQLSERVER -> "(DATEDIFF(SECOND, ?, " + time + ") / " + seconds + ")";
            case ORACLE -> "FLOOR(ROUND((CAST(" + time + " AS DATE) - CAST(? AS DATE)) * 86400) / " + seconds + ")";
        };
    }

    /**
     * @param productName {@link java.sql.DatabaseMetaData#getDatabaseProductName()}
     * @return the kind
     * @throws IllegalArgumentException when the queue has no schema for that database (e.g. MySQL,
     *                                  which has no sequences)
     */
    public static DatabaseKind of(String productName) {
        String name = productName == null ? "" : productName.toLowerCase(Locale.ROOT);
        if (name.contains("derby")) {
            return DERBY;
        }
        if (name.contains("postgresql")) {
            return POSTGRESQL;
        }
        if (name.contains("mariadb")) {
            return MARIADB;
        }
        if (name.contains("sql server")) {
            return SQLSERVER;
        }
        if (name.contains("oracle")) {
            return ORACLE;
        }
        throw new IllegalArgumentException("mailqueue has no schema for database '" + productName
                + "'; supported: Derby, PostgreSQL, MariaDB, SQL Server, Oracle");
    }
}
