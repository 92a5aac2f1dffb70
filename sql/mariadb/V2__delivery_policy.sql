-- Delivery policy (issue 4): new states and attempt outcomes. Same changes in every sql/<db>/V2.
-- EXPIRED: the mail outlived its expires-at or the queue's maximum lifetime and was not sent.
-- HELD: a lease expired after the SMTP transaction may have begun, and the in-doubt policy says
-- hold for review instead of resend. IN_DOUBT: the attempt of such a lease.
ALTER TABLE MAIL_MESSAGE DROP CONSTRAINT MAIL_MESSAGE_STATUS_CK;
ALTER TABLE MAIL_MESSAGE ADD CONSTRAINT MAIL_MESSAGE_STATUS_CK
    CHECK (STATUS IN ('QUEUED', 'SENDING', 'SENT', 'FAILED', 'CANCELLED', 'EXPIRED', 'HELD'));
ALTER TABLE MAIL_ATTEMPT DROP CONSTRAINT MAIL_ATTEMPT_OUTCOME_CK;
ALTER TABLE MAIL_ATTEMPT ADD CONSTRAINT MAIL_ATTEMPT_OUTCOME_CK CHECK (OUTCOME IN ('SENT', 'FAILED', 'IN_DOUBT'));

-- Lifetime: UTC time after which the mail is EXPIRED instead of sent; the earlier of the caller's
-- expires-at and created-at plus the queue's maximum lifetime.
ALTER TABLE MAIL_MESSAGE ADD COLUMN EXPIRES_AT DATETIME(6);
-- Idempotency: "<user>TAB<key>", a caller's key for one enqueue (up to 255) scoped to the user who
-- enqueued (up to 256); a repeat by the same user with the same key returns the mail already queued.
ALTER TABLE MAIL_MESSAGE ADD COLUMN IDEMPOTENCY_KEY VARCHAR(512);
-- In doubt: set (UTC) just before the claimer starts the SMTP transaction for the row, cleared when the
-- outcome is recorded. A lease that expires with it set may have been sent.
ALTER TABLE MAIL_MESSAGE ADD COLUMN SEND_STARTED_AT DATETIME(6);
-- One row per recipient: every copy of one enqueue names the id of the first copy; null otherwise.
ALTER TABLE MAIL_MESSAGE ADD COLUMN COPY_OF BIGINT;
ALTER TABLE MAIL_MESSAGE ADD CONSTRAINT MAIL_MESSAGE_IDEMPOTENCY_UQ UNIQUE (IDEMPOTENCY_KEY);

-- RFC 3463 enhanced status code of the reply, e.g. 5.1.1 (class.subject.detail, up to 3 digits each).
ALTER TABLE MAIL_ATTEMPT ADD COLUMN ENHANCED_STATUS VARCHAR(11);

-- Per-recipient outcomes, written once an attempt treats a mail's recipients differently (some accepted,
-- some refused): SENT and REFUSED recipients are settled and never sent to again; DEFERRED ones are
-- retried with the mail.
CREATE TABLE MAIL_RECIPIENT (
    MAIL_ID          BIGINT         NOT NULL,
    ADDRESS          VARCHAR(254)   NOT NULL,
    STATUS           VARCHAR(16)    NOT NULL,
    REPLY_CODE       INT,
    ENHANCED_STATUS  VARCHAR(11),
    REPLY_TEXT       VARCHAR(1000),
    UPDATED_AT       DATETIME(6)      NOT NULL,
    CONSTRAINT MAIL_RECIPIENT_PK PRIMARY KEY (MAIL_ID, ADDRESS),
    CONSTRAINT MAIL_RECIPIENT_MAIL_FK FOREIGN KEY (MAIL_ID) REFERENCES MAIL_MESSAGE (ID) ON DELETE CASCADE,
    CONSTRAINT MAIL_RECIPIENT_STATUS_CK CHECK (STATUS IN ('SENT', 'REFUSED', 'DEFERRED'))
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
