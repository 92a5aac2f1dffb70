-- Bounces that come back later (issue 11): a Delivery Status Notification (RFC 3464) or a complaint
-- (ARF, RFC 5965) read from the bounce mailbox becomes an attempt-log row (BOUNCED, DELAYED,
-- COMPLAINED) and a recipient outcome (BOUNCED, COMPLAINED); each report is recorded once, by its key
-- (its Message-ID, or a digest of its bytes), so reading a mailbox twice changes nothing; a hard bounce,
-- a complaint or an operator puts the address on the suppression list, and a mail enqueued to such an
-- address has that recipient SUPPRESSED (the mail too, when no recipient is left). Same changes in every sql/<db>/V7.
ALTER TABLE mail_message DROP CONSTRAINT mail_message_status_ck;
ALTER TABLE mail_message ADD CONSTRAINT mail_message_status_ck
    CHECK (status IN ('QUEUED', 'SENDING', 'SENT', 'FAILED', 'CANCELLED', 'EXPIRED', 'HELD', 'SUPPRESSED'));
ALTER TABLE mail_attempt DROP CONSTRAINT mail_attempt_outcome_ck;
ALTER TABLE mail_attempt ADD CONSTRAINT mail_attempt_outcome_ck
    CHECK (outcome IN ('SENT', 'FAILED', 'IN_DOUBT', 'BOUNCED', 'DELAYED', 'COMPLAINED'));
ALTER TABLE mail_recipient DROP CONSTRAINT mail_recipient_status_ck;
ALTER TABLE mail_recipient ADD CONSTRAINT mail_recipient_status_ck
    CHECK (status IN ('SENT', 'REFUSED', 'DEFERRED', 'BOUNCED', 'COMPLAINED', 'SUPPRESSED'));

-- Recipients of the mail that were suppressed when it was enqueued (NULL or 0: none); the claim reads the
-- recipient rows of a mail that has some, as it does for a mail tried before.
ALTER TABLE mail_message ADD COLUMN suppressed_count INTEGER;

-- One row per report read from the bounce mailbox, whatever it was: the key makes a re-read a no-op.
CREATE TABLE bounce_report (
    report_key     VARCHAR(255)   NOT NULL,  -- the report's Message-ID, or sha256:<hex> of its bytes
    received_at    TIMESTAMP  NOT NULL,  -- when the intake recorded it
    kind           VARCHAR(16)    NOT NULL,
    mail_id        BIGINT,                -- the mail it reports on; NULL when none matched
    recipients     INTEGER    NOT NULL,  -- recipients it acted on
    CONSTRAINT bounce_report_pk PRIMARY KEY (report_key),
    CONSTRAINT bounce_report_kind_ck CHECK (kind IN ('FAILED', 'DELAYED', 'COMPLAINT', 'UNRECOGNISED'))
);

-- Addresses not to be sent to: in scope '*' for all mail, or only for one list. The address is stored
-- with its domain in lower case (RFC 5321 §2.4: the local part may be case-sensitive, the domain is not).
CREATE TABLE suppression (
    address        VARCHAR(254)   NOT NULL,
    scope          VARCHAR(64)    NOT NULL,
    reason         VARCHAR(16)    NOT NULL,
    mail_id        BIGINT,                -- the mail whose bounce or complaint put it here, if any
    detail         VARCHAR(1000),           -- e.g. the DSN's status and diagnostic, or the operator's note
    created_at     TIMESTAMP  NOT NULL,
    CONSTRAINT suppression_pk PRIMARY KEY (address, scope),
    CONSTRAINT suppression_reason_ck CHECK (reason IN ('HARD_BOUNCE', 'SOFT_BOUNCE', 'COMPLAINT', 'UNSUBSCRIBE', 'MANUAL'))
);
CREATE INDEX suppression_created_ix ON suppression (created_at);

-- Soft bounces of one address within a window (mailqueue.bounce.soft-limit): counted by address.
CREATE INDEX mail_recipient_address_ix ON mail_recipient (address);
