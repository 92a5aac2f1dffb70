-- Fewer index entries per row version, PostgreSQL only. PostgreSQL adds an entry to every index of a
-- table for each row version that is not a HOT update, and a mail gets three such versions after its
-- insert (claim, send-started mark, outcome: its status is indexed). Most mails leave REFERENCE, CAMPAIGN
-- and IDEMPOTENCY_KEY NULL, so these three indexes now hold only the rows that set them: every query that
-- uses them asks for a value (COL = ?), which implies NOT NULL, so the planner still picks them, and a
-- repeated idempotency key is still refused (unique violation, SQLSTATE 23505). The events' index for the
-- publisher holds only what is still unpublished, which is all the publisher reads (PUBLISHED = 0).
-- The other databases keep V9's indexes: MariaDB, Derby and SQL Server have no such cost (an update
-- touches only the indexes of the columns it changes), and Oracle leaves all-NULL keys out anyway.
-- Each CREATE INDEX locks its table against writes while it builds: on a large queue, run this at a
-- quiet time (Flyway applies it at start-up).

DROP INDEX mail_message_reference_ix;
CREATE INDEX mail_message_reference_ix ON mail_message (reference) WHERE reference IS NOT NULL;

DROP INDEX mail_message_campaign_ix;
CREATE INDEX mail_message_campaign_ix ON mail_message (campaign, status) WHERE campaign IS NOT NULL;

ALTER TABLE mail_message DROP CONSTRAINT mail_message_idempotency_uq;
CREATE UNIQUE INDEX mail_message_idempotency_uq ON mail_message (idempotency_key) WHERE idempotency_key IS NOT NULL;

DROP INDEX mail_event_published_ix;
CREATE INDEX mail_event_unpublished_ix ON mail_event (id) WHERE published = 0;
