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
ALTER TABLE MAIL_MESSAGE ADD (EXPIRES_AT TIMESTAMP);
-- Idempotency: "<user>TAB<key>", a caller's key for one enqueue (up to 255) scoped to the user who
-- enqueued (up to 256); a repeat by the same user with the same key returns the mail already queued.
ALTER TABLE MAIL_MESSAGE ADD (IDEMPOTENCY_KEY VARCHAR2(512 CHAR));
-- In doubt: set (UTC) just before the claimer starts the SMTP transaction for the row, cleared when the
-- outcome is recorded. A lease that expires with it set may have been sent.
ALTER TABLE MAIL_MESSAGE ADD (SEND_STARTED_AT TIMESTAMP);
-- One row per recipient: every copy of one enqueue names the id of the first copy; null otherwise.
ALTER TABLE MAIL_MESSAGE ADD (COPY_OF NUMBER(19));
ALTER TABLE MAIL_MESSAGE ADD CONSTRAINT MAIL_MESSAGE_IDEMPOTENCY_UQ UNIQUE (IDEMPOTENCY_KEY);

-- RFC 3463 enhanced status code of the reply, e.g. 5.1.1 (class.subject.detail, up to 3 digits each).
ALTER TABLE MAIL_ATTEMPT ADD (ENHANCED_STATUS VARCHAR2(11 CHAR));

-- Per-recipient outcomes, written once an attempt treats a mail's recipients differently (some accepted,
-- some refused): SENT and REFUSED recipients are settled and never sent to again; DEFERRED ones are
-- retried with the mail.
CREATE TABLE MAIL_RECIPIENT (
    MAIL_ID          NUMBER(19)         NOT NULL,
    ADDRESS          VARCHAR2(254 CHAR)   NOT NULL,
    STATUS           VARCHAR2(16 CHAR)    NOT NULL,
    REPLY_CODE       NUMBER(10),
    ENHANCED_STATUS  VARCHAR2(11 CHAR),
    REPLY_TEXT       VARCHAR2(1000 CHAR),
    UPDATED_AT       TIMESTAMP      NOT NULL,
    CONSTRAINT MAIL_RECIPIENT_PK PRIMARY KEY (MAIL_ID, ADDRESS),
    CONSTRAINT MAIL_RECIPIENT_MAIL_FK FOREIGN KEY (MAIL_ID) REFERENCES MAIL_MESSAGE (ID) ON DELETE CASCADE,
    CONSTRAINT MAIL_RECIPIENT_STATUS_CK CHECK (STATUS IN ('SENT', 'REFUSED', 'DEFERRED'))
);
