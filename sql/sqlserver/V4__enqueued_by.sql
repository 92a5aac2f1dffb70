-- Operating the queue (issue 5): who enqueued each mail, so a sender reads only its own mails and an
-- operator can filter by it; and the index the statistics read sent mails per hour with.
-- Same changes in every sql/<db>/V4. UNTESTED, like V1. Rows queued before V4 have no enqueuer
-- (NULL): only administrators see them.
ALTER TABLE MAIL_MESSAGE ADD ENQUEUED_BY NVARCHAR(200);  -- the authenticated user, e.g. "sender"

-- A sender's own mails, newest first, and the admin filter enqueuedBy.
CREATE INDEX MAIL_MESSAGE_ENQUEUED_BY_IX ON MAIL_MESSAGE (ENQUEUED_BY, CREATED_AT);
-- Mails sent per hour over the last 24 h: a range on SENT_AT.
CREATE INDEX MAIL_MESSAGE_SENT_AT_IX ON MAIL_MESSAGE (SENT_AT);
