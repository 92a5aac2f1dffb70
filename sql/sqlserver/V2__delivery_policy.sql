-- Delivery policy (issue 4): new states and attempt outcomes. Same changes in every sql/<db>/V2.
-- EXPIRED: the mail outlived its expires-at or the queue's maximum lifetime and was not sent.
-- HELD: a lease expired after the SMTP transaction may have begun, and the in-doubt policy says
-- hold for review instead of resend. IN_DOUBT: the attempt of such a lease.
ALTER TABLE MAIL_MESSAGE DROP CONSTRAINT MAIL_MESSAGE_STATUS_CK;
ALTER TABLE MAIL_MESSAGE ADD CONSTRAINT MAIL_MESSAGE_STATUS_CK
    CHECK (STATUS IN ('QUEUED', 'SENDING', 'SENT', 'FAILED', 'CANCELLED', 'EXPIRED', 'HELD'));
ALTER TABLE MAIL_ATTEMPT DROP CONSTRAINT MAIL_ATTEMPT_OUTCOME_CK;
ALTER TABLE MAIL_ATTEMPT ADD CONSTRAINT MAIL_ATTEMPT_OUTCOME_CK CHECK (OUTCOME IN ('SENT', 'FAILED', 'IN_DOUBT'));
