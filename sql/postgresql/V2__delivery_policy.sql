-- Delivery policy (issue 4): new states and attempt outcomes. Same changes in every sql/<db>/V2.
-- EXPIRED: the mail outlived its expires-at or the queue's maximum lifetime and was not sent.
-- HELD: a lease expired after the SMTP transaction may have begun, and the in-doubt policy says
-- hold for review instead of resend. IN_DOUBT: the attempt of such a lease.
ALTER TABLE mail_message DROP CONSTRAINT mail_message_status_ck;
ALTER TABLE mail_message ADD CONSTRAINT mail_message_status_ck
    CHECK (status IN ('QUEUED', 'SENDING', 'SENT', 'FAILED', 'CANCELLED', 'EXPIRED', 'HELD'));
ALTER TABLE mail_attempt DROP CONSTRAINT mail_attempt_outcome_ck;
ALTER TABLE mail_attempt ADD CONSTRAINT mail_attempt_outcome_ck CHECK (outcome IN ('SENT', 'FAILED', 'IN_DOUBT'));

-- Lifetime: UTC time after which the mail is EXPIRED instead of sent; the earlier of the caller's
-- expires-at and created-at plus the queue's maximum lifetime.
ALTER TABLE mail_message ADD COLUMN expires_at TIMESTAMP;
-- Idempotency: "<user>TAB<key>", a caller's key for one enqueue (up to 255) scoped to the user who
-- enqueued (up to 256); a repeat by the same user with the same key returns the mail already queued.
ALTER TABLE mail_message ADD COLUMN idempotency_key VARCHAR(512);
-- In doubt: set (UTC) just before the claimer starts the SMTP transaction for the row, cleared when the
-- outcome is recorded. A lease that expires with it set may have been sent.
ALTER TABLE mail_message ADD COLUMN send_started_at TIMESTAMP;
-- One row per recipient: every copy of one enqueue names the id of the first copy; null otherwise.
ALTER TABLE mail_message ADD COLUMN copy_of BIGINT;
ALTER TABLE mail_message ADD CONSTRAINT mail_message_idempotency_uq UNIQUE (idempotency_key);

-- RFC 3463 enhanced status code of the reply, e.g. 5.1.1 (class.subject.detail, up to 3 digits each).
ALTER TABLE mail_attempt ADD COLUMN enhanced_status VARCHAR(11);

-- Per-recipient outcomes, written once an attempt treats a mail's recipients differently (some accepted,
-- some refused): SENT and REFUSED recipients are settled and never sent to again; DEFERRED ones are
-- retried with the mail.
CREATE TABLE mail_recipient (
    mail_id          BIGINT         NOT NULL,
    address          VARCHAR(254)   NOT NULL,
    status           VARCHAR(16)    NOT NULL,
    reply_code       INTEGER,
    enhanced_status  VARCHAR(11),
    reply_text       VARCHAR(1000),
    updated_at       TIMESTAMP      NOT NULL,
    CONSTRAINT mail_recipient_pk PRIMARY KEY (mail_id, address),
    CONSTRAINT mail_recipient_mail_fk FOREIGN KEY (mail_id) REFERENCES mail_message (id) ON DELETE CASCADE,
    CONSTRAINT mail_recipient_status_ck CHECK (status IN ('SENT', 'REFUSED', 'DEFERRED'))
);
