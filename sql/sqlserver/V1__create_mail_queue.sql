-- mailqueue schema, Microsoft SQL Server 2012 or later (sequences came with 2012) / Azure SQL.
-- UNTESTED: written from the SQL Server documentation; no SQL Server runs where this project is
-- built. Try it on a scratch database before relying on it.
-- Applied by Flyway at application start (SchemaMigrator); keep this file unchanged once released and
-- add V2__... files for changes. Same tables, columns and constraints as sql/derby.
-- All timestamps are UTC wall-clock time, written by the application: DATETIME2 (100 ns, no zone).
--
-- Names are UPPER CASE, as EclipseLink sends them, so they also resolve in a database with a
-- case-sensitive collation. Text columns are NVARCHAR (Unicode): the Microsoft JDBC driver sends
-- strings as NVARCHAR by default, and comparing a VARCHAR column with an NVARCHAR parameter converts
-- the column and can turn index seeks into scans. NVARCHAR(n) stops at 4,000, so longer text is (MAX).

-- Sequences step by 50 to match the JPA allocationSize, so one round trip serves 50 inserts;
-- EclipseLink reads a value as the top of its block, so they start at 50
-- (it sends SELECT NEXT VALUE FOR MAIL_MESSAGE_SEQ).
CREATE SEQUENCE MAIL_MESSAGE_SEQ AS BIGINT START WITH 50 INCREMENT BY 50;
CREATE SEQUENCE MAIL_ATTEMPT_SEQ AS BIGINT START WITH 50 INCREMENT BY 50;

CREATE TABLE MAIL_MESSAGE (
    ID                 BIGINT          NOT NULL,
    -- RFC 5322 Message-ID with angle brackets. Binary collation: compared exactly, case sensitive, as on
    -- the other databases, whatever the database's default collation is.
    MESSAGE_ID         NVARCHAR(255)   COLLATE Latin1_General_100_BIN2 NOT NULL,
    STATUS             NVARCHAR(16)    NOT NULL,
    PRIORITY           SMALLINT        NOT NULL,  -- 0..9, higher is sent first
    CREATED_AT         DATETIME2       NOT NULL,
    NOT_BEFORE         DATETIME2       NOT NULL,  -- due when NOT_BEFORE <= now
    ATTEMPTS_REMAINING INT             NOT NULL,
    LEASE_OWNER        NVARCHAR(200),             -- set while SENDING: which claimer holds the row
    LEASE_EXPIRES_AT   DATETIME2,                 -- after this the row may be claimed again
    LAST_ATTEMPT_AT    DATETIME2,
    SENT_AT            DATETIME2,
    FROM_ADDRESS       NVARCHAR(254)   NOT NULL,  -- RFC 5321 4.5.3.1.3: 254 octets
    FROM_NAME          NVARCHAR(200),
    REPLY_TO           NVARCHAR(254),
    TO_ADDRESSES       NVARCHAR(MAX),             -- comma separated, at most 100 recipients in all
    CC_ADDRESSES       NVARCHAR(MAX),
    BCC_ADDRESSES      NVARCHAR(MAX),
    SUBJECT            NVARCHAR(998),             -- RFC 5322 2.1.1: 998 characters a line
    TEXT_BODY          NVARCHAR(MAX),             -- up to 1,048,576 characters each
    HTML_BODY          NVARCHAR(MAX),
    LAST_ERROR         NVARCHAR(2000),
    CONSTRAINT MAIL_MESSAGE_PK PRIMARY KEY (ID),
    CONSTRAINT MAIL_MESSAGE_MESSAGE_ID_UQ UNIQUE (MESSAGE_ID),
    CONSTRAINT MAIL_MESSAGE_STATUS_CK
        CHECK (STATUS IN ('QUEUED', 'SENDING', 'SENT', 'FAILED', 'CANCELLED')),
    CONSTRAINT MAIL_MESSAGE_PRIORITY_CK CHECK (PRIORITY BETWEEN 0 AND 9),
    CONSTRAINT MAIL_MESSAGE_ATTEMPTS_CK CHECK (ATTEMPTS_REMAINING >= 0)
);

-- The claim reads due QUEUED rows in priority, then age order. On SQL Server the claim is the cursor
-- strategy: the JPQL query MailMessage.dueIds, in which EclipseLink binds the status as a parameter
-- (STATUS = ?). SQL Server never uses a filtered index (WHERE STATUS = 'QUEUED') for a predicate on a
-- parameter, because the cached plan must suit any value; so this index is not filtered: STATUS first,
-- then the ORDER BY, with the due test's columns included so rows that are not due yet are skipped
-- without a key lookup. If the pick ever becomes a native query with the literal 'QUEUED' (as on
-- PostgreSQL), a V2 may replace it by the smaller
--   CREATE INDEX MAIL_MESSAGE_CLAIM_IX ON MAIL_MESSAGE (PRIORITY DESC, CREATED_AT, ID)
--       INCLUDE (NOT_BEFORE, ATTEMPTS_REMAINING) WHERE STATUS = 'QUEUED';
-- (filtered indexes also need the connection's ANSI_NULLS and QUOTED_IDENTIFIER ON, the JDBC default).
CREATE INDEX MAIL_MESSAGE_CLAIM_IX ON MAIL_MESSAGE (STATUS, PRIORITY DESC, CREATED_AT, ID)
    INCLUDE (NOT_BEFORE, ATTEMPTS_REMAINING);
-- SENDING rows whose lease has expired (STATUS = ? AND LEASE_EXPIRES_AT < ?, both bound).
CREATE INDEX MAIL_MESSAGE_LEASE_IX ON MAIL_MESSAGE (STATUS, LEASE_EXPIRES_AT);

CREATE TABLE MAIL_ATTEMPT (
    ID               BIGINT          NOT NULL,
    MAIL_ID          BIGINT          NOT NULL,
    STARTED_AT       DATETIME2       NOT NULL,
    FINISHED_AT      DATETIME2       NOT NULL,
    SERVER_INSTANCE  NVARCHAR(200)   NOT NULL,
    LEASE_OWNER      NVARCHAR(200)   NOT NULL,
    OUTCOME          NVARCHAR(16)    NOT NULL,
    SMTP_REPLY_CODE  INT,                         -- RFC 5321 4.2: three-digit reply code, if any
    SMTP_REPLY_TEXT  NVARCHAR(1000),
    ERROR            NVARCHAR(2000),
    CONSTRAINT MAIL_ATTEMPT_PK PRIMARY KEY (ID),
    CONSTRAINT MAIL_ATTEMPT_MAIL_FK FOREIGN KEY (MAIL_ID) REFERENCES MAIL_MESSAGE (ID) ON DELETE CASCADE,
    CONSTRAINT MAIL_ATTEMPT_OUTCOME_CK CHECK (OUTCOME IN ('SENT', 'FAILED'))
);

-- The attempt log of one mail, oldest first; also serves the cascading delete.
CREATE INDEX MAIL_ATTEMPT_MAIL_IX ON MAIL_ATTEMPT (MAIL_ID, STARTED_AT);
