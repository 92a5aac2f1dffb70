package dev.mailqueue.api;

import java.time.Instant;

/**
 * The size limits every enqueued mail must keep. Values come from the RFCs where one sets them and
 * are otherwise the documented defaults of this queue.
 */
public final class MailLimits {

    /** RFC 5321 §4.5.3.1.3: a path is at most 256 octets with its angle brackets, so 254 for the address. */
    public static final int ADDRESS_OCTETS = 254;

    /** RFC 5321 §4.5.3.1.1: the local part is at most 64 octets. */
    public static final int LOCAL_PART_OCTETS = 64;

    /** RFC 5321 §4.5.3.1.2: the domain is at most 255 octets. */
    public static final int DOMAIN_OCTETS = 255;

    /** RFC 5321 §4.5.3.1.8: a server must accept at least 100 recipients; to, cc and bcc together. */
    public static final int RECIPIENTS = 100;

    /** RFC 5322 §2.1.1: a header line is at most 998 characters; the subject is held to that. */
    public static final int SUBJECT_CHARS = 998;

    /** Display name of the sender, in characters. */
    public static final int DISPLAY_NAME_CHARS = 200;

    /** Text body and HTML body, each, in characters: 1 MiB worth (1,048,576). */
    public static final int BODY_CHARS = 1_048_576;

    /** File name of an attachment, in characters: the common file system limit (ext4, NTFS: 255). */
    public static final int FILENAME_CHARS = 255;

    /** MIME type of an attachment with its parameters, in characters. */
    public static final int CONTENT_TYPE_CHARS = 255;

    /** Custom header fields per mail. */
    public static final int HEADERS = 50;

    /**
     * Name of a custom header field, in characters: RFC 5322 §2.1.1 asks for lines of at most 78
     * characters, so a name of up to 76 leaves room for the colon and a space.
     */
    public static final int HEADER_NAME_CHARS = 76;

    /** Value of a custom header field, in characters: RFC 5322 §2.1.1, 998 characters a line. */
    public static final int HEADER_VALUE_CHARS = 998;

    /**
     * Mails in one bulk enqueue ({@code POST /api/mails/batch}, {@link MailQueue#enqueueAll}): a mail merge
     * of 10,000 recipients, each with its own template variables, is one request. The request's bytes are
     * capped apart from this ({@code mailqueue.http.max-request-bytes}).
     */
    public static final int BATCH = 10_000;

    /** A template's name: letters, digits, dot, underscore and hyphen, 1 to 64 characters. */
    public static final String TEMPLATE_NAME = "[A-Za-z0-9._-]{1,64}";

    /** Locales of one template. */
    public static final int TEMPLATE_LOCALES = 100;

    /** Nesting of a template's variables: maps and lists within maps and lists, at most this deep. */
    public static final int TEMPLATE_VARIABLE_DEPTH = 16;

    /** Lowest priority; JMS uses the same 0..9 scale. */
    public static final int PRIORITY_MIN = 0;

    /** Highest priority. */
    public static final int PRIORITY_MAX = 9;

    /** Priority of a mail that names none, as in JMS. */
    public static final int PRIORITY_DEFAULT = 4;

    /**
     * Earliest instant a mail's times and a search's dates may name: the Unix epoch. Every supported
     * database stores far earlier (MariaDB DATETIME from year 1000, Derby and SQL Server DATETIME2 from
     * year 1), and no mail or search needs earlier.
     */
    public static final Instant EARLIEST_INSTANT = Instant.parse("1970-01-01T00:00:00Z");

    /**
     * Latest instant a mail's times and a search's dates may name: the last second of year 9999, the end
     * of MariaDB's DATETIME, Derby's TIMESTAMP, SQL Server's DATETIME2 and Oracle's TIMESTAMP.
     */
    public static final Instant LATEST_INSTANT = Instant.parse("9999-12-31T23:59:59Z");

    /** An SMTP account's name: the {@code mailqueue.accounts} rule, 1 to 64 of A-Z a-z 0-9 _ -. */
    public static final String ACCOUNT_NAME = "[A-Za-z0-9_-]{1,64}";

    /**
     * A mailing list's name for one-click unsubscribe and its suppression scope: 1 to 64 of
     * A-Z a-z 0-9 . _ - (the width of SUPPRESSION.SCOPE; {@code *}, the scope of all mail, is not one).
     */
    public static final String LIST_NAME = "[A-Za-z0-9._-]{1,64}";

    /** A campaign's name: the same characters as a list name, 1 to 64 of them. */
    public static final String CAMPAIGN_NAME = LIST_NAME;

    /** A tag: 1 to 64 of A-Z a-z 0-9 . _ - : (no comma: a mail's tags are stored comma-separated). */
    public static final String TAG = "[A-Za-z0-9._:-]{1,64}";

    /** Tags per mail. */
    public static final int TAGS = 10;

    /** The caller's own reference for a mail, in characters. */
    public static final int REFERENCE_CHARS = 255;

    /**
     * @param instant an instant, not null
     * @return whether it lies from {@link #EARLIEST_INSTANT} to {@link #LATEST_INSTANT}, both included
     */
    public static boolean storable(Instant instant) {
        return !instant.isBefore(EARLIEST_INSTANT) && !instant.isAfter(LATEST_INSTANT);
    }

    private MailLimits() {
    }
}
