-- Operating the queue (issue 5): who enqueued each mail, so a sender reads only its own mails and an
-- operator can filter by it; and the index the statistics read sent mails per hour with.
-- Same changes in every sql/<db>/V4. Rows queued before V4 have no enqueuer (NULL): only
-- administrators see them.
ALTER TABLE mail_message ADD COLUMN enqueued_by VARCHAR(200);  -- the authenticated user, e.g. "sender"

-- A sender's own mails, newest first, and the admin filter enqueuedBy.
CREATE INDEX mail_message_enqueued_by_ix ON mail_message (enqueued_by, created_at);
-- Mails sent per hour over the last 24 h: a range on sent_at. Partial, so the unsent rows (most of a
-- busy queue's live rows) stay out of it.
CREATE INDEX mail_message_sent_at_ix ON mail_message (sent_at) WHERE sent_at IS NOT NULL;
