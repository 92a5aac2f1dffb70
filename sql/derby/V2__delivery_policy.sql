-- Delivery policy (issue 4): new states and attempt outcomes. Same changes in every sql/<db>/V2.
-- EXPIRED: the mail outlived its expires-at or the queue's maximum lifetime and was not sent.
-- HELD: a lease expired after the SMTP transaction may have begun, and the in-doubt policy says
-- hold for review instead of resend. IN_DOUBT: the attempt of such a lease.
ALTER TABLE mail_message DROP CONSTRAINT mail_message_status_ck;
ALTER TABLE mail_message ADD CONSTRAINT mail_message_status_ck
    CHECK (status IN ('QUEUED', 'SENDING', 'SENT', 'FAILED', 'CANCELLED', 'EXPIRED', 'HELD'));
ALTER TABLE mail_attempt DROP CONSTRAINT mail_attempt_outcome_ck;
ALTER TABLE mail_attempt ADD CONSTRAINT mail_attempt_outcome_ck CHECK (outcome IN ('SENT', 'FAILED', 'IN_DOUBT'));
