-- mailqueue schema, PostgreSQL 10 or later (CREATE SEQUENCE ... AS came with 10); tested with 15.
-- Applied by Flyway at application start (SchemaMigrator); keep this file unchanged once released and
-- add V2__... files for changes. Same tables, columns and constraints as sql/derby.
-- All timestamps are UTC wall-clock time (TIMESTAMP without time zone), written by the application.
-- Names are unquoted, so PostgreSQL folds them to lower case, as it does EclipseLink's unquoted
-- MAIL_MESSAGE, NOT_BEFORE, ... and nextval('MAIL_MESSAGE_SEQ').

-- Sequences step by 50 to match the JPA allocationSize, so one round trip serves 50 inserts;
-- EclipseLink reads a value as the top of its block, so they start at 50.
CREATE SEQUENCE mail_message_seq AS BIGINT START WITH 50 INCREMENT BY 50;
CREATE SEQUENCE mail_attempt_seq AS BIGINT START WITH 50 INCREMENT BY 50;

CREATE TABLE mail_message (
    id                 BIGINT          NOT NULL,
    message_id         VARCHAR(255)    NOT NULL,  -- RFC 5322 Message-ID with angle brackets
    status             VARCHAR(16)     NOT NULL,
    priority           SMALLINT        NOT NULL,  -- 0..9, higher is sent first
    created_at         TIMESTAMP       NOT NULL,
    not_before         TIMESTAMP       NOT NULL,  -- due when not_before <= now
    attempts_remaining INTEGER         NOT NULL,
    lease_owner        VARCHAR(200),              -- set while SENDING: which claimer holds the row
    lease_expires_at   TIMESTAMP,                 -- after this the row may be claimed again
    last_attempt_at    TIMESTAMP,
    sent_at            TIMESTAMP,
    from_address       VARCHAR(254)    NOT NULL,  -- RFC 5321 4.5.3.1.3: 254 octets
    from_name          VARCHAR(200),
    reply_to           VARCHAR(254),
    to_addresses       VARCHAR(26000),            -- comma separated, at most 100 recipients in all
    cc_addresses       VARCHAR(26000),
    bcc_addresses      VARCHAR(26000),
    subject            VARCHAR(998),              -- RFC 5322 2.1.1: 998 characters a line
    text_body          TEXT,                      -- up to 1,048,576 characters each
    html_body          TEXT,
    last_error         VARCHAR(2000),
    CONSTRAINT mail_message_pk PRIMARY KEY (id),
    CONSTRAINT mail_message_message_id_uq UNIQUE (message_id),
    CONSTRAINT mail_message_status_ck
        CHECK (status IN ('QUEUED', 'SENDING', 'SENT', 'FAILED', 'CANCELLED')),
    CONSTRAINT mail_message_priority_ck CHECK (priority BETWEEN 0 AND 9),
    CONSTRAINT mail_message_attempts_ck CHECK (attempts_remaining >= 0)
);

-- The claim reads due QUEUED rows in priority, then age order (WHERE status = 'QUEUED' AND
-- not_before <= ? AND attempts_remaining > 0 ORDER BY priority DESC, created_at, id ... SKIP LOCKED).
-- A partial index holds only the QUEUED rows, so it stays small however many SENT rows pile up, and
-- its order is the ORDER BY: the scan stops after LIMIT due rows. The status must be the literal
-- 'QUEUED' in the query (not a bound parameter) for the planner to match the index.
CREATE INDEX mail_message_claim_ix ON mail_message (priority DESC, created_at, id)
    WHERE status = 'QUEUED';
-- Expired leases: status = 'SENDING' AND lease_expires_at < ?. The lease is set only while SENDING,
-- so indexing just the rows that have one keeps the index as small as the SENDING rows. The predicate
-- is on lease_expires_at rather than status on purpose: the planner proves "IS NOT NULL" from
-- "lease_expires_at < ?" even with a bound parameter, and EclipseLink binds the SENDING literal of the
-- JPQL queries as a parameter, which a "WHERE status = 'SENDING'" index could not match in a generic plan.
CREATE INDEX mail_message_lease_ix ON mail_message (lease_expires_at)
    WHERE lease_expires_at IS NOT NULL;

CREATE TABLE mail_attempt (
    id               BIGINT         NOT NULL,
    mail_id          BIGINT         NOT NULL,
    started_at       TIMESTAMP      NOT NULL,
    finished_at      TIMESTAMP      NOT NULL,
    server_instance  VARCHAR(200)   NOT NULL,
    lease_owner      VARCHAR(200)   NOT NULL,
    outcome          VARCHAR(16)    NOT NULL,
    smtp_reply_code  INTEGER,                     -- RFC 5321 4.2: three-digit reply code, if any
    smtp_reply_text  VARCHAR(1000),
    error            VARCHAR(2000),
    CONSTRAINT mail_attempt_pk PRIMARY KEY (id),
    CONSTRAINT mail_attempt_mail_fk FOREIGN KEY (mail_id) REFERENCES mail_message (id) ON DELETE CASCADE,
    CONSTRAINT mail_attempt_outcome_ck CHECK (outcome IN ('SENT', 'FAILED'))
);

-- The attempt log of one mail, oldest first; also serves the cascading delete.
CREATE INDEX mail_attempt_mail_ix ON mail_attempt (mail_id, started_at);
