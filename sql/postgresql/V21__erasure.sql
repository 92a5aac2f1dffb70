-- Erasure of a person's data (issue 51, point 4; GDPR art. 17): POST /api/admin/erasures records one request
-- here and starts the mail-erasure batch job. mail_erasure is the receipt kept for audit: when, by whom, how many
-- addresses, and how many rows of each kind the job removed; never an address. mail_erasure_address holds the
-- addresses while the job runs (a restart reads them again) and is emptied when it completes: the job's parameters
-- name only the erasure's id, since the batch runtime keeps parameters in its own tables for good. up_to_mail_id
-- bounds the job to the mails that existed when it was asked for; later mail to the address is suppressed by the
-- ERASED entry the request adds to the suppression list, whose address is a keyed hash (erased:<hex>, never a
-- valid address: an unquoted ':' is not allowed in one).
-- Same columns in every sql/<db>/V21.
ALTER TABLE suppression DROP CONSTRAINT suppression_reason_ck;
ALTER TABLE suppression ADD CONSTRAINT suppression_reason_ck
    CHECK (reason IN ('HARD_BOUNCE', 'SOFT_BOUNCE', 'COMPLAINT', 'UNSUBSCRIBE', 'MANUAL', 'ERASED'));
CREATE TABLE mail_erasure (
    id                  BIGINT        NOT NULL,
    requested_at        TIMESTAMP     NOT NULL,  -- UTC
    requested_by        VARCHAR(255)  NOT NULL,  -- the operator's name
    addresses           INTEGER       NOT NULL,  -- how many distinct addresses it names
    up_to_mail_id       BIGINT        NOT NULL,  -- the highest mail id when it was asked for; 0 when none
    job_execution_id    BIGINT,                  -- the latest execution of its mail-erasure job
    completed_at        TIMESTAMP,               -- UTC, NULL until the job completed
    mails               BIGINT        DEFAULT 0 NOT NULL,  -- mails deleted (queued, finished, held)
    cancelled           BIGINT        DEFAULT 0 NOT NULL,  -- of them, mails that were still queued or held
    log_rows            BIGINT        DEFAULT 0 NOT NULL,  -- mail_attempt rows deleted (the mails' and their own events)
    recipients          BIGINT        DEFAULT 0 NOT NULL,  -- mail_recipient rows deleted with the mails
    attachments         BIGINT        DEFAULT 0 NOT NULL,  -- mail_attachment rows deleted with the mails
    raw_messages        BIGINT        DEFAULT 0 NOT NULL,  -- mail_raw rows deleted with the mails
    webhook_deliveries  BIGINT        DEFAULT 0 NOT NULL,  -- webhook_delivery rows deleted
    bounce_reports      BIGINT        DEFAULT 0 NOT NULL,  -- bounce_report rows of the mails deleted
    suppressions        BIGINT        DEFAULT 0 NOT NULL,  -- suppression rows of the addresses replaced by the hash
    CONSTRAINT mail_erasure_pk PRIMARY KEY (id)
);
CREATE TABLE mail_erasure_address (
    erasure_id  BIGINT        NOT NULL,
    address     VARCHAR(254)  NOT NULL,  -- lower case (ErasureKey.normalise)
    CONSTRAINT mail_erasure_address_pk PRIMARY KEY (erasure_id, address)
);
-- The erasure deletes a mail's bounce reports by MAIL_ID.
CREATE INDEX bounce_report_mail ON bounce_report (mail_id);
