-- mailqueue schema, MariaDB 10.11 (tested here). Needs 10.6 or later for SKIP LOCKED in the claim;
-- 10.3 brought CREATE SEQUENCE and 10.8 descending indexes (older servers accept DESC but ignore it).
-- Applied by Flyway at application start (SchemaMigrator); keep this file unchanged once released and
-- add V2__... files for changes. Same tables, columns and constraints as sql/derby.
-- All timestamps are UTC wall-clock time, written by the application: DATETIME(6) (microseconds),
-- which MariaDB stores as given and never shifts by the session time zone, unlike TIMESTAMP.
--
-- Table and sequence names are UPPER CASE: on Linux (lower_case_table_names=0) MariaDB table names
-- are case sensitive, and EclipseLink sends MAIL_MESSAGE, MAIL_ATTEMPT and "select nextval(MAIL_MESSAGE_SEQ)"
-- (its MariaDBPlatform; the MySQL one has no sequences). Column and index names are case insensitive.
--
-- Character set utf8mb4 (all of Unicode), collation utf8mb4_bin: values compare by code point, case
-- sensitive, as on Derby and PostgreSQL. Message-IDs and lease owners are identifiers, not words: two
-- Message-IDs that differ only in case are different ids, and a case-insensitive collation would make
-- the UNIQUE constraint refuse the second one. Nothing here is searched or sorted as language text.

-- Sequences step by 50 to match the JPA allocationSize, so one round trip serves 50 inserts;
-- EclipseLink reads a value as the top of its block, so they start at 50.
CREATE SEQUENCE MAIL_MESSAGE_SEQ START WITH 50 INCREMENT BY 50;
CREATE SEQUENCE MAIL_ATTEMPT_SEQ START WITH 50 INCREMENT BY 50;

CREATE TABLE MAIL_MESSAGE (
    ID                 BIGINT         NOT NULL,
    MESSAGE_ID         VARCHAR(255)   NOT NULL,  -- RFC 5322 Message-ID with angle brackets
    STATUS             VARCHAR(16)    NOT NULL,
    PRIORITY           SMALLINT       NOT NULL,  -- 0..9, higher is sent first
    CREATED_AT         DATETIME(6)    NOT NULL,
    NOT_BEFORE         DATETIME(6)    NOT NULL,  -- due when NOT_BEFORE <= now
    ATTEMPTS_REMAINING INT            NOT NULL,
    LEASE_OWNER        VARCHAR(200),             -- set while SENDING: which claimer holds the row
    LEASE_EXPIRES_AT   DATETIME(6),              -- after this the row may be claimed again
    LAST_ATTEMPT_AT    DATETIME(6),
    SENT_AT            DATETIME(6),
    FROM_ADDRESS       VARCHAR(254)   NOT NULL,  -- RFC 5321 4.5.3.1.3: 254 octets
    FROM_NAME          VARCHAR(200),
    REPLY_TO           VARCHAR(254),
    -- Comma separated, at most 100 recipients in all, each at most 254 UTF-8 octets: under 25,500
    -- bytes, which TEXT (65,535 bytes) holds. Three VARCHAR(26000) in utf8mb4 would pass MariaDB's
    -- 65,535-byte row limit; TEXT counts only a few bytes towards it.
    TO_ADDRESSES       TEXT,
    CC_ADDRESSES       TEXT,
    BCC_ADDRESSES      TEXT,
    SUBJECT            VARCHAR(998),             -- RFC 5322 2.1.1: 998 characters a line
    -- Up to 1,048,576 characters each, so up to 4 MiB in utf8mb4: MEDIUMTEXT (16 MiB). A row with both
    -- bodies full is about 8 MiB on the wire; max_allowed_packet (16 MiB by default) must stay above that.
    TEXT_BODY          MEDIUMTEXT,
    HTML_BODY          MEDIUMTEXT,
    LAST_ERROR         VARCHAR(2000),
    PRIMARY KEY (ID),                        -- MariaDB names every primary key PRIMARY
    CONSTRAINT MAIL_MESSAGE_MESSAGE_ID_UQ UNIQUE (MESSAGE_ID),
    CONSTRAINT MAIL_MESSAGE_STATUS_CK
        CHECK (STATUS IN ('QUEUED', 'SENDING', 'SENT', 'FAILED', 'CANCELLED')),
    CONSTRAINT MAIL_MESSAGE_PRIORITY_CK CHECK (PRIORITY BETWEEN 0 AND 9),
    CONSTRAINT MAIL_MESSAGE_ATTEMPTS_CK CHECK (ATTEMPTS_REMAINING >= 0),
    -- The claim reads due QUEUED rows in priority, then age order (WHERE STATUS = 'QUEUED' AND
    -- NOT_BEFORE <= ? AND ATTEMPTS_REMAINING > 0 ORDER BY PRIORITY DESC, CREATED_AT, ID ... SKIP LOCKED).
    -- MariaDB has no partial index: STATUS first, then the ORDER BY, so the scan reads the QUEUED rows in
    -- order and stops after LIMIT due ones, without a sort.
    INDEX MAIL_MESSAGE_CLAIM_IX (STATUS, PRIORITY DESC, CREATED_AT, ID),
    -- ... and SENDING rows whose lease has expired (STATUS = 'SENDING' AND LEASE_EXPIRES_AT < ?).
    INDEX MAIL_MESSAGE_LEASE_IX (STATUS, LEASE_EXPIRES_AT)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

CREATE TABLE MAIL_ATTEMPT (
    ID               BIGINT         NOT NULL,
    MAIL_ID          BIGINT         NOT NULL,
    STARTED_AT       DATETIME(6)    NOT NULL,
    FINISHED_AT      DATETIME(6)    NOT NULL,
    SERVER_INSTANCE  VARCHAR(200)   NOT NULL,
    LEASE_OWNER      VARCHAR(200)   NOT NULL,
    OUTCOME          VARCHAR(16)    NOT NULL,
    SMTP_REPLY_CODE  INT,                        -- RFC 5321 4.2: three-digit reply code, if any
    SMTP_REPLY_TEXT  VARCHAR(1000),
    ERROR            VARCHAR(2000),
    PRIMARY KEY (ID),
    -- The attempt log of one mail, oldest first; declared here so InnoDB also uses it for the foreign
    -- key instead of adding an index of its own.
    INDEX MAIL_ATTEMPT_MAIL_IX (MAIL_ID, STARTED_AT),
    CONSTRAINT MAIL_ATTEMPT_MAIL_FK FOREIGN KEY (MAIL_ID) REFERENCES MAIL_MESSAGE (ID) ON DELETE CASCADE,
    CONSTRAINT MAIL_ATTEMPT_OUTCOME_CK CHECK (OUTCOME IN ('SENT', 'FAILED'))
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
