-- Counts per status that cost the same at any size of history (issue 51). The statistics answer, the console's
-- overview and the queue-depth gauges read the mails out of the queue per status from here instead of from the
-- log (whose latest status row per mail they had to find among every row ever written). The statements that
-- change a status add to them in their own transaction (StatusCounts): one row per status and bucket, 16
-- buckets, a transaction's changes in one bucket picked at random; a status's count is the sum of its buckets.
-- Counted: every status a mail has out of MAIL_QUEUE (SENT, FAILED, CANCELLED, EXPIRED, HELD, SUPPRESSED).
--
-- Servers of an older version must be stopped before this runs: a mail they finish afterwards is not counted.
-- The seed below counts the mails as the log says they are now, all in bucket 0. Same table in every sql/<db>/V17.
CREATE TABLE mail_status_count (
    status  VARCHAR(16)  NOT NULL,  -- a counted MailStatus
    bucket  SMALLINT     NOT NULL,  -- 0 to 15
    mails   BIGINT       NOT NULL,  -- this bucket's share of the count; one bucket's may be negative
    CONSTRAINT mail_status_count_pk PRIMARY KEY (status, bucket)
) WITH (fillfactor = 10);  -- room in each page, so that an update of a count stays in its page (HOT, no index write)
INSERT INTO mail_status_count (status, bucket, mails) VALUES
    ('SENT', 0, 0),
    ('SENT', 1, 0),
    ('SENT', 2, 0),
    ('SENT', 3, 0),
    ('SENT', 4, 0),
    ('SENT', 5, 0),
    ('SENT', 6, 0),
    ('SENT', 7, 0),
    ('SENT', 8, 0),
    ('SENT', 9, 0),
    ('SENT', 10, 0),
    ('SENT', 11, 0),
    ('SENT', 12, 0),
    ('SENT', 13, 0),
    ('SENT', 14, 0),
    ('SENT', 15, 0),
    ('FAILED', 0, 0),
    ('FAILED', 1, 0),
    ('FAILED', 2, 0),
    ('FAILED', 3, 0),
    ('FAILED', 4, 0),
    ('FAILED', 5, 0),
    ('FAILED', 6, 0),
    ('FAILED', 7, 0),
    ('FAILED', 8, 0),
    ('FAILED', 9, 0),
    ('FAILED', 10, 0),
    ('FAILED', 11, 0),
    ('FAILED', 12, 0),
    ('FAILED', 13, 0),
    ('FAILED', 14, 0),
    ('FAILED', 15, 0),
    ('CANCELLED', 0, 0),
    ('CANCELLED', 1, 0),
    ('CANCELLED', 2, 0),
    ('CANCELLED', 3, 0),
    ('CANCELLED', 4, 0),
    ('CANCELLED', 5, 0),
    ('CANCELLED', 6, 0),
    ('CANCELLED', 7, 0),
    ('CANCELLED', 8, 0),
    ('CANCELLED', 9, 0),
    ('CANCELLED', 10, 0),
    ('CANCELLED', 11, 0),
    ('CANCELLED', 12, 0),
    ('CANCELLED', 13, 0),
    ('CANCELLED', 14, 0),
    ('CANCELLED', 15, 0),
    ('EXPIRED', 0, 0),
    ('EXPIRED', 1, 0),
    ('EXPIRED', 2, 0),
    ('EXPIRED', 3, 0),
    ('EXPIRED', 4, 0),
    ('EXPIRED', 5, 0),
    ('EXPIRED', 6, 0),
    ('EXPIRED', 7, 0),
    ('EXPIRED', 8, 0),
    ('EXPIRED', 9, 0),
    ('EXPIRED', 10, 0),
    ('EXPIRED', 11, 0),
    ('EXPIRED', 12, 0),
    ('EXPIRED', 13, 0),
    ('EXPIRED', 14, 0),
    ('EXPIRED', 15, 0),
    ('HELD', 0, 0),
    ('HELD', 1, 0),
    ('HELD', 2, 0),
    ('HELD', 3, 0),
    ('HELD', 4, 0),
    ('HELD', 5, 0),
    ('HELD', 6, 0),
    ('HELD', 7, 0),
    ('HELD', 8, 0),
    ('HELD', 9, 0),
    ('HELD', 10, 0),
    ('HELD', 11, 0),
    ('HELD', 12, 0),
    ('HELD', 13, 0),
    ('HELD', 14, 0),
    ('HELD', 15, 0),
    ('SUPPRESSED', 0, 0),
    ('SUPPRESSED', 1, 0),
    ('SUPPRESSED', 2, 0),
    ('SUPPRESSED', 3, 0),
    ('SUPPRESSED', 4, 0),
    ('SUPPRESSED', 5, 0),
    ('SUPPRESSED', 6, 0),
    ('SUPPRESSED', 7, 0),
    ('SUPPRESSED', 8, 0),
    ('SUPPRESSED', 9, 0),
    ('SUPPRESSED', 10, 0),
    ('SUPPRESSED', 11, 0),
    ('SUPPRESSED', 12, 0),
    ('SUPPRESSED', 13, 0),
    ('SUPPRESSED', 14, 0),
    ('SUPPRESSED', 15, 0);
-- The mails out of the queue, by the latest row of their log that set a status.
UPDATE mail_status_count SET mails = (SELECT COUNT(*) FROM mail_attempt a
    WHERE a.mail_status = mail_status_count.status
    AND NOT EXISTS (SELECT 1 FROM mail_attempt b WHERE b.mail_id = a.mail_id
                    AND b.mail_status IS NOT NULL AND b.id > a.id)
    AND NOT EXISTS (SELECT 1 FROM mail_queue q WHERE q.mail_id = a.mail_id))
WHERE bucket = 0;
