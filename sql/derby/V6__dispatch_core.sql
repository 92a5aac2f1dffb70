-- The dispatch core (issue 9): per mail, when its current claim took it (the console shows queued ->
-- claimed -> sent), how many header fields and attachments it has (so a claim reads MAIL_HEADER and
-- MAIL_ATTACHMENT only for mails that have any; NULL for rows queued before V6: looked up), and the
-- digest of the request that queued it under an idempotency key (a repeat of the key with another
-- body is refused); and an index for the copies of a per-recipient enqueue (COPY_OF). Same changes in
-- every sql/<db>/V6.
ALTER TABLE mail_message ADD COLUMN claimed_at TIMESTAMP;
ALTER TABLE mail_message ADD COLUMN header_count INTEGER;
ALTER TABLE mail_message ADD COLUMN attachment_count INTEGER;
ALTER TABLE mail_message ADD COLUMN idempotency_fingerprint VARCHAR(64);  -- SHA-256, hex
CREATE INDEX mail_message_copy_of_ix ON mail_message (copy_of);
