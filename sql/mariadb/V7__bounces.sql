-- Bounces that come back later (issue 11): a Delivery Status Notification (RFC 3464) or a complaint
-- (ARF, RFC 5965) read from the bounce mailbox becomes an attempt-log row (BOUNCED, DELAYED,
-- COMPLAINED) and a recipient outcome (BOUNCED, COMPLAINED); each report is recorded once, by its key
-- (its Message-ID, or a digest of its bytes), so reading a mailbox twice changes nothing; a hard bounce,
-- a complaint or an operator puts the address on the suppression list, and a mail enqueued to such an
-- address has that recipient SUPPRESSED (the mail too, when no recipient is left). Same changes in every sql/<db>/V7.
ALTER TABLE MAIL_MESSAGE DROP CONSTRAINT MAIL_MESSAGE_STATUS_CK;
ALTER TABLE MAIL_MESSAGE ADD CONSTRAINT MAIL_MESSAGE_STATUS_CK
    CHECK (STATUS IN ('QUEUED', 'SENDING', 'SENT', 'FAILED', 'CANCELLED', 'EXPIRED', 'HELD', 'SUPPRESSED'));
ALTER TABLE MAIL_ATTEMPT DROP CONSTRAINT MAIL_ATTEMPT_OUTCOME_CK;
ALTER TABLE MAIL_ATTEMPT ADD CONSTRAINT MAIL_ATTEMPT_OUTCOME_CK
    CHECK (OUTCOME IN ('SENT', 'FAILED', 'IN_DOUBT', 'BOUNCED', 'DELAYED', 'COMPLAINED'));
ALTER TABLE MAIL_RECIPIENT DROP CONSTRAINT MAIL_RECIPIENT_STATUS_CK;
ALTER TABLE MAIL_RECIPIENT ADD CONSTRAINT MAIL_RECIPIENT_STATUS_CK
    CHECK (STATUS IN ('SENT', 'REFUSED', 'DEFERRED', 'BOUNCED', 'COMPLAINED', 'SUPPRESSED'));

-- Recipients of the mail that were suppressed when it was enqueued (NULL or 0: none); the claim reads the
-- recipient rows of a mail that has some, as it does for a mail tried before.
ALTER TABLE MAIL_MESSAGE ADD COLUMN SUPPRESSED_COUNT INT;

-- One row per report read from the bounce mailbox, whatever it was: the key makes a re-read a no-op.
CREATE TABLE BOUNCE_REPORT (
    REPORT_KEY     VARCHAR(255)   NOT NULL,  -- the report's Message-ID, or sha256:<hex> of its bytes
    RECEIVED_AT    DATETIME(6)  NOT NULL,  -- when the intake recorded it
    KIND           VARCHAR(16)    NOT NULL,
    MAIL_ID        BIGINT,                -- the mail it reports on; NULL when none matched
    RECIPIENTS     INT    NOT NULL,  -- recipients it acted on
    CONSTRAINT BOUNCE_REPORT_PK PRIMARY KEY (REPORT_KEY),
    CONSTRAINT BOUNCE_REPORT_KIND_CK CHECK (KIND IN ('FAILED', 'DELAYED', 'COMPLAINT', 'UNRECOGNISED'))
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Addresses not to be sent to: in scope '*' for all mail, or only for one list. The address is stored
-- with its domain in lower case (RFC 5321 §2.4: the local part may be case-sensitive, the domain is not).
CREATE TABLE SUPPRESSION (
    ADDRESS        VARCHAR(254)   NOT NULL,
    SCOPE          VARCHAR(64)    NOT NULL,
    REASON         VARCHAR(16)    NOT NULL,
    MAIL_ID        BIGINT,                -- the mail whose bounce or complaint put it here, if any
    DETAIL         VARCHAR(1000),           -- e.g. the DSN's status and diagnostic, or the operator's note
    CREATED_AT     DATETIME(6)  NOT NULL,
    CONSTRAINT SUPPRESSION_PK PRIMARY KEY (ADDRESS, SCOPE),
    CONSTRAINT SUPPRESSION_REASON_CK CHECK (REASON IN ('HARD_BOUNCE', 'SOFT_BOUNCE', 'COMPLAINT', 'UNSUBSCRIBE', 'MANUAL'))
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
CREATE INDEX SUPPRESSION_CREATED_IX ON SUPPRESSION (CREATED_AT);

-- Soft bounces of one address within a window (mailqueue.bounce.soft-limit): counted by address.
CREATE INDEX MAIL_RECIPIENT_ADDRESS_IX ON MAIL_RECIPIENT (ADDRESS);
