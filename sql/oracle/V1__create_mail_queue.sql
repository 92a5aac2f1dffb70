-- mailqueue schema, Oracle Database 12c or later.
-- UNTESTED: written from the Oracle documentation; no Oracle database runs where this project is
-- built. Try it on a scratch schema before relying on it.
-- Applied by Flyway at application start (SchemaMigrator); keep this file unchanged once released and
-- add V2__... files for changes. Same tables, columns and constraints as sql/derby.
-- All timestamps are UTC wall-clock time, written by the application: TIMESTAMP (microseconds, no
-- zone); not DATE, which drops fractions of a second.
--
-- Oracle folds unquoted names to upper case, as EclipseLink sends them. Text lengths are in characters
-- (n CHAR), but with MAX_STRING_SIZE = STANDARD (the default) a VARCHAR2 still holds at most 4,000
-- bytes: LAST_ERROR and ERROR keep 2,000 characters only while they average 2 bytes or less each
-- (true of English and other Latin-script text). The recipient lists (up to about 25,500 bytes) and
-- the bodies (up to 1,048,576 characters) are CLOBs.

-- Sequences step by 50 to match the JPA allocationSize, so one round trip serves 50 inserts;
-- EclipseLink reads a value as the top of its block, so they start at 50
-- (it sends SELECT MAIL_MESSAGE_SEQ.NEXTVAL FROM DUAL).
CREATE SEQUENCE MAIL_MESSAGE_SEQ START WITH 50 INCREMENT BY 50;
CREATE SEQUENCE MAIL_ATTEMPT_SEQ START WITH 50 INCREMENT BY 50;

CREATE TABLE MAIL_MESSAGE (
    ID                 NUMBER(19)          NOT NULL,
    MESSAGE_ID         VARCHAR2(255 CHAR)  NOT NULL,  -- RFC 5322 Message-ID with angle brackets
    STATUS             VARCHAR2(16 CHAR)   NOT NULL,
    PRIORITY           NUMBER(5)           NOT NULL,  -- 0..9, higher is sent first
    CREATED_AT         TIMESTAMP           NOT NULL,
    NOT_BEFORE         TIMESTAMP           NOT NULL,  -- due when NOT_BEFORE <= now
    ATTEMPTS_REMAINING NUMBER(10)          NOT NULL,
    LEASE_OWNER        VARCHAR2(200 CHAR),            -- set while SENDING: which claimer holds the row
    LEASE_EXPIRES_AT   TIMESTAMP,                     -- after this the row may be claimed again
    LAST_ATTEMPT_AT    TIMESTAMP,
    SENT_AT            TIMESTAMP,
    FROM_ADDRESS       VARCHAR2(254 CHAR)  NOT NULL,  -- RFC 5321 4.5.3.1.3: 254 octets
    FROM_NAME          VARCHAR2(200 CHAR),
    REPLY_TO           VARCHAR2(254 CHAR),
    TO_ADDRESSES       CLOB,                          -- comma separated, at most 100 recipients in all
    CC_ADDRESSES       CLOB,
    BCC_ADDRESSES      CLOB,
    SUBJECT            VARCHAR2(998 CHAR),            -- RFC 5322 2.1.1: 998 characters a line
    TEXT_BODY          CLOB,
    HTML_BODY          CLOB,
    LAST_ERROR         VARCHAR2(2000 CHAR),
    CONSTRAINT MAIL_MESSAGE_PK PRIMARY KEY (ID),
    CONSTRAINT MAIL_MESSAGE_MESSAGE_ID_UQ UNIQUE (MESSAGE_ID),
    CONSTRAINT MAIL_MESSAGE_STATUS_CK
        CHECK (STATUS IN ('QUEUED', 'SENDING', 'SENT', 'FAILED', 'CANCELLED')),
    CONSTRAINT MAIL_MESSAGE_PRIORITY_CK CHECK (PRIORITY BETWEEN 0 AND 9),
    CONSTRAINT MAIL_MESSAGE_ATTEMPTS_CK CHECK (ATTEMPTS_REMAINING >= 0)
);

-- Oracle has no partial index, so plain composite indexes, as on Derby. The claim reads due QUEUED
-- rows in priority, then age order (STATUS = ? AND NOT_BEFORE <= ? AND ATTEMPTS_REMAINING > ?
-- ORDER BY PRIORITY DESC, CREATED_AT, ID): STATUS first, then the ORDER BY, so a range scan returns
-- the rows in order and stops at the page size without a sort.
CREATE INDEX MAIL_MESSAGE_CLAIM_IX ON MAIL_MESSAGE (STATUS, PRIORITY DESC, CREATED_AT, ID);
-- SENDING rows whose lease has expired (STATUS = ? AND LEASE_EXPIRES_AT < ?).
CREATE INDEX MAIL_MESSAGE_LEASE_IX ON MAIL_MESSAGE (STATUS, LEASE_EXPIRES_AT);

CREATE TABLE MAIL_ATTEMPT (
    ID               NUMBER(19)          NOT NULL,
    MAIL_ID          NUMBER(19)          NOT NULL,
    STARTED_AT       TIMESTAMP           NOT NULL,
    FINISHED_AT      TIMESTAMP           NOT NULL,
    SERVER_INSTANCE  VARCHAR2(200 CHAR)  NOT NULL,
    LEASE_OWNER      VARCHAR2(200 CHAR)  NOT NULL,
    OUTCOME          VARCHAR2(16 CHAR)   NOT NULL,
    SMTP_REPLY_CODE  NUMBER(10),                      -- RFC 5321 4.2: three-digit reply code, if any
    SMTP_REPLY_TEXT  VARCHAR2(1000 CHAR),
    ERROR            VARCHAR2(2000 CHAR),
    CONSTRAINT MAIL_ATTEMPT_PK PRIMARY KEY (ID),
    CONSTRAINT MAIL_ATTEMPT_MAIL_FK FOREIGN KEY (MAIL_ID) REFERENCES MAIL_MESSAGE (ID) ON DELETE CASCADE,
    CONSTRAINT MAIL_ATTEMPT_OUTCOME_CK CHECK (OUTCOME IN ('SENT', 'FAILED'))
);

-- The attempt log of one mail, oldest first; also serves the cascading delete (without an index on
-- the foreign key, deleting a MAIL_MESSAGE row would lock all of MAIL_ATTEMPT).
CREATE INDEX MAIL_ATTEMPT_MAIL_IX ON MAIL_ATTEMPT (MAIL_ID, STARTED_AT);
