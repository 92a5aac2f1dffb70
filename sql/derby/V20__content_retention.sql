-- Content kept shorter than the mail (issue 51, point 3): the retention job's content step blanks the bodies of a
-- finished mail and deletes its attachments and raw bytes once it is mailqueue.retention.content-days old, and stamps
-- content_removed_at, so that its view says so and a requeue refuses it (it would go out empty); the mail's
-- addresses, subject, headers, log and recipients stay until mailqueue.retention.days. retention_mark keeps how far
-- the step has got (the cutoff of its last complete run; 1970 before the first), so that the next run reads only
-- the log of the mails finished since, not all the history. The new column is nullable, without a default:
-- PostgreSQL and MariaDB (instant ADD COLUMN) add it without rewriting a row.
-- Same columns in every sql/<db>/V20.
ALTER TABLE mail_message ADD content_removed_at TIMESTAMP;  -- when the content step removed its content (UTC), or NULL
CREATE TABLE retention_mark (
    name     VARCHAR(32)  NOT NULL,  -- the step: content
    reached  TIMESTAMP    NOT NULL,  -- its last complete run removed the content of every mail finished before this
    CONSTRAINT retention_mark_pk PRIMARY KEY (name)
);
INSERT INTO retention_mark (name, reached) VALUES ('content', '1970-01-01 00:00:00');
