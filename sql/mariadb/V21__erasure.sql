-- Erasure of a person's data (issue 51, point 4; GDPR art. 17): POST /api/admin/erasures records one request
-- here and starts the mail-erasure batch job. mail_erasure is the receipt kept for audit: when, by whom, how many
-- addresses, and how many rows of each kind the job removed; never an address. mail_erasure_address holds the
-- addresses while the job runs (a restart reads them again) and is emptied when it completes: the job's parameters
-- name only the erasure's id, since the batch runtime keeps parameters in its own tables for good. up_to_mail_id
-- bounds the job to the mails that existed when it was asked for; later mail to the address is suppressed by the
-- ERASED entry the request adds to the suppression list, whose address is a keyed hash (erased:<hex>, never a
-- valid address: an unquoted ':' is not allowed in one).
-- Same columns in every sql/<db>/V21.
ALTER TABLE SUPPRESSION DROP CONSTRAINT SUPPRESSION_REASON_CK;
ALTER TABLE SUPPRESSION ADD CONSTRAINT SUPPRESSION_REASON_CK
    CHECK (REASON IN ('HARD_BOUNCE', 'SOFT_BOUNCE', 'COMPLAINT', 'UNSUBSCRIBE', 'MANUAL', 'ERASED'));
CREATE TABLE MAIL_ERASURE (
    ID                  BIGINT        NOT NULL,
    REQUESTED_AT        DATETIME(6)   NOT NULL,  -- UTC
    REQUESTED_BY        VARCHAR(255)  NOT NULL,  -- the operator's name
    ADDRESSES           INTEGER       NOT NULL,  -- how many distinct addresses it names
    UP_TO_MAIL_ID       BIGINT        NOT NULL,  -- the highest mail id when it was asked for; 0 when none
    JOB_EXECUTION_ID    BIGINT,                  -- the latest execution of its mail-erasure job
    COMPLETED_AT        DATETIME(6),              -- UTC, NULL until the job completed
    MAILS               BIGINT        DEFAULT 0 NOT NULL,  -- mails deleted (queued, finished, held)
    CANCELLED           BIGINT        DEFAULT 0 NOT NULL,  -- of them, mails that were still queued or held
    LOG_ROWS            BIGINT        DEFAULT 0 NOT NULL,  -- mail_attempt rows deleted (the mails' and their own events)
    RECIPIENTS          BIGINT        DEFAULT 0 NOT NULL,  -- mail_recipient rows deleted with the mails
    ATTACHMENTS         BIGINT        DEFAULT 0 NOT NULL,  -- mail_attachment rows deleted with the mails
    RAW_MESSAGES        BIGINT        DEFAULT 0 NOT NULL,  -- mail_raw rows deleted with the mails
    WEBHOOK_DELIVERIES  BIGINT        DEFAULT 0 NOT NULL,  -- webhook_delivery rows deleted
    BOUNCE_REPORTS      BIGINT        DEFAULT 0 NOT NULL,  -- bounce_report rows of the mails deleted
    SUPPRESSIONS        BIGINT        DEFAULT 0 NOT NULL,  -- suppression rows of the addresses replaced by the hash
    CONSTRAINT MAIL_ERASURE_PK PRIMARY KEY (ID)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
CREATE TABLE MAIL_ERASURE_ADDRESS (
    ERASURE_ID  BIGINT        NOT NULL,
    ADDRESS     VARCHAR(254)  NOT NULL,  -- lower case (ErasureKey.normalise)
    CONSTRAINT MAIL_ERASURE_ADDRESS_PK PRIMARY KEY (ERASURE_ID, ADDRESS)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
-- The erasure deletes a mail's bounce reports by MAIL_ID.
CREATE INDEX BOUNCE_REPORT_MAIL ON BOUNCE_REPORT (MAIL_ID);
