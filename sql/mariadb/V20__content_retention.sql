-- Content kept shorter than the mail (issue 51, point 3): the retention job's content step blanks the bodies of a
-- finished mail and deletes its attachments and raw bytes once it is mailqueue.retention.content-days old, and stamps
-- content_removed_at, so that its view says so and a requeue refuses it (it would go out empty); the mail's
-- addresses, subject, headers, log and recipients stay until mailqueue.retention.days. retention_mark keeps how far
-- the step has got (the cutoff of its last complete run; 1970 before the first), so that the next run reads only
-- the log of the mails finished since, not all the history. The new column is nullable, without a default:
-- PostgreSQL and MariaDB (instant ADD COLUMN) add it without rewriting a row.
-- Same columns in every sql/<db>/V20.
ALTER TABLE MAIL_MESSAGE ADD CONTENT_REMOVED_AT DATETIME(6);  -- when the content step removed its content (UTC), or NULL
CREATE TABLE RETENTION_MARK (
    NAME     VARCHAR(32)  NOT NULL,  -- the step: content
    REACHED  DATETIME(6)  NOT NULL,  -- its last complete run removed the content of every mail finished before this
    CONSTRAINT RETENTION_MARK_PK PRIMARY KEY (NAME)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
INSERT INTO RETENTION_MARK (NAME, REACHED) VALUES ('content', '1970-01-01 00:00:00');
