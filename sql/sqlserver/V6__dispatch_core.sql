-- The dispatch core (issue 9): per mail, when its current claim took it (the console shows queued ->
-- claimed -> sent), how many header fields and attachments it has (so a claim reads MAIL_HEADER and
-- MAIL_ATTACHMENT only for mails that have any; NULL for rows queued before V6: looked up), and the
-- digest of the request that queued it under an idempotency key (a repeat of the key with another
-- body is refused); and an index for the copies of a per-recipient enqueue (COPY_OF). Same changes in
-- every sql/<db>/V6.
-- UNTESTED, like V1: written from the SQL Server documentation.
ALTER TABLE MAIL_MESSAGE ADD CLAIMED_AT DATETIME2;
ALTER TABLE MAIL_MESSAGE ADD HEADER_COUNT INT;
ALTER TABLE MAIL_MESSAGE ADD ATTACHMENT_COUNT INT;
ALTER TABLE MAIL_MESSAGE ADD IDEMPOTENCY_FINGERPRINT NVARCHAR(64);  -- SHA-256, hex
CREATE INDEX MAIL_MESSAGE_COPY_OF_IX ON MAIL_MESSAGE (COPY_OF) WHERE COPY_OF IS NOT NULL;
