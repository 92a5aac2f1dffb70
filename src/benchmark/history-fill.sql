-- Fills the run server's schema (mailqueue) with a history, for src/benchmark/history.sh. Not the API: plain SQL,
-- as fast as PostgreSQL writes, in transactions of :chunk mails. psql variables: finished (mails of the past :days
-- days), queued (mails due later: scheduled), chunk.
--
-- Shape of a finished mail (i from 1): 1 KB of text, two To recipients (user<n>@example.com and
-- user<m>@example.org, 1,000,000 of each domain), enqueued by the run profile's user `sender`, account `mailqueue`;
-- by i mod 100:
--   0-91 SENT        one attempt row (SENT, event SENT)
--   92-95 FAILED     a deferral (451, status QUEUED, event DEFERRED), then the attempt that failed it (550,
--                    status FAILED, event FAILED) with both recipients REFUSED in MAIL_RECIPIENT
--   96 SENT+BOUNCED  the SENT row, then a bounce report's row (BOUNCED, no status, event BOUNCED) with that
--                    recipient BOUNCED
--   97 CANCELLED     one row (CANCELLED, event CANCELLED)
--   98 EXPIRED       one row (EXPIRED)
--   99 SUPPRESSED    one row (SUPPRESSED at enqueue)
-- so 1.06 log rows and 0.12 recipient rows a mail. Log rows get TX 0: the event publishers never take them (their
-- cursors start at 1). The counts per status (V17's MAIL_STATUS_COUNT) get the filled mails, as the stores would
-- have counted them. Queued mails: due 1 to 30 days from now, priority 4, a MAIL_QUEUE row each, no log.
-- Ids come from blocks reserved first by moving the sequences past them, so the running server never hands out one.
\set ON_ERROR_STOP 1
SET search_path = mailqueue;
SET synchronous_commit = off;

SELECT nextval('mail_message_seq') + 1000 AS first_mail, nextval('mail_log_seq') + 1000 AS first_log \gset
SELECT setval('mail_message_seq', :first_mail + :finished + :queued + 1000),
       setval('mail_log_seq', :first_log + 2 * (:finished) + 1000) \gset

CREATE TEMPORARY TABLE fill_settings AS
SELECT :first_mail::bigint AS first_mail, :first_log::bigint AS first_log, :finished::bigint AS finished,
       :queued::bigint AS queued, :chunk::bigint AS chunk, (now() AT TIME ZONE 'UTC')::timestamp AS t0;

DO $$
DECLARE
    s record;
    lo bigint;
    hi bigint;
    body text := repeat('The quick brown fox jumps over the lazy dog; 0123456789 abcdefg' || chr(10), 16);
BEGIN
    SELECT * INTO s FROM fill_settings;
    lo := 1;
    WHILE lo <= s.finished LOOP
        hi := least(lo + s.chunk - 1, s.finished);
        -- created over the past 90 days, oldest first; finished 2 s after
        INSERT INTO mail_message (id, message_id, priority, created_at, from_address, from_name, to_addresses, subject,
                                  text_body, enqueued_by, smtp_account, header_count, attachment_count)
        SELECT s.first_mail + i, '<h' || (s.first_mail + i) || '@history.mailqueue.test>', 4,
               s.t0 - interval '90 days' + (i * (interval '90 days' / s.finished)),
               'news@mailqueue.test', 'History', 'user' || (i % 1000000) || '@example.com,user' || ((i * 7) % 1000000)
               || '@example.org', 'history mail ' || i, body, 'sender', 'mailqueue', 0, 0
        FROM generate_series(lo, hi) i;
        -- first log row of each mail: id first_log + 2i
        INSERT INTO mail_attempt (id, mail_id, started_at, finished_at, server_instance, lease_owner, outcome,
                                  smtp_reply_code, smtp_reply_text, error, enhanced_status, smtp_account, mail_status,
                                  event_type, next_attempt_at, results, tx)
        SELECT s.first_log + 2 * i, s.first_mail + i, c + interval '1 second', c + interval '2 seconds',
               'history/fill', 'history/fill#1',
               CASE WHEN r <= 91 OR r = 96 THEN 'SENT' WHEN r <= 95 THEN 'FAILED' WHEN r = 97 THEN 'CANCELLED'
                    WHEN r = 98 THEN 'EXPIRED' ELSE 'SUPPRESSED' END,
               CASE WHEN r <= 91 OR r = 96 THEN 250 WHEN r <= 95 THEN 451 END,
               CASE WHEN r <= 91 OR r = 96 THEN '250 2.0.0 Ok' WHEN r <= 95 THEN '451 4.7.1 try again later' END,
               CASE WHEN r BETWEEN 92 AND 95 THEN '451 4.7.1 try again later' WHEN r = 98 THEN 'expired'
                    WHEN r = 99 THEN 'every recipient on the suppression list' END,
               CASE WHEN r <= 91 OR r = 96 THEN '2.0.0' WHEN r <= 95 THEN '4.7.1' END,
               CASE WHEN r <= 96 THEN 'mailqueue' END,
               CASE WHEN r <= 91 OR r = 96 THEN 'SENT' WHEN r <= 95 THEN 'QUEUED' WHEN r = 97 THEN 'CANCELLED'
                    WHEN r = 98 THEN 'EXPIRED' ELSE 'SUPPRESSED' END,
               CASE WHEN r <= 91 OR r = 96 THEN 'SENT' WHEN r <= 95 THEN 'DEFERRED' WHEN r = 97 THEN 'CANCELLED'
                    WHEN r = 98 THEN 'EXPIRED' ELSE 'SUPPRESSED' END,
               CASE WHEN r BETWEEN 92 AND 95 THEN c + interval '10 minutes' END, 0, 0
        FROM (SELECT i, i % 100 AS r, s.t0 - interval '90 days' + (i * (interval '90 days' / s.finished)) AS c
              FROM generate_series(lo, hi) i) g;
        -- second log row of failed and bounced mails: id first_log + 2i + 1
        INSERT INTO mail_attempt (id, mail_id, started_at, finished_at, server_instance, lease_owner, outcome,
                                  smtp_reply_code, smtp_reply_text, error, enhanced_status, smtp_account, mail_status,
                                  event_type, recipient, results, tx)
        SELECT s.first_log + 2 * i + 1, s.first_mail + i, c + interval '10 minutes', c + interval '10 minutes 1 second',
               'history/fill', CASE WHEN r = 96 THEN 'bounce-intake' ELSE 'history/fill#2' END,
               CASE WHEN r = 96 THEN 'BOUNCED' ELSE 'FAILED' END, 550,
               '550 5.1.1 no such user', CASE WHEN r = 96 THEN 'bounced: 5.1.1' ELSE '550 5.1.1 no such user' END,
               '5.1.1', CASE WHEN r <> 96 THEN 'mailqueue' END, CASE WHEN r <> 96 THEN 'FAILED' END,
               CASE WHEN r = 96 THEN 'BOUNCED' ELSE 'FAILED' END,
               CASE WHEN r = 96 THEN 'user' || (i % 1000000) || '@example.com' END,
               CASE WHEN r = 96 THEN 1 ELSE 2 END, 0
        FROM (SELECT i, i % 100 AS r, s.t0 - interval '90 days' + (i * (interval '90 days' / s.finished)) AS c
              FROM generate_series(lo, hi) i) g
        WHERE r BETWEEN 92 AND 96;
        INSERT INTO mail_recipient (mail_id, address, status, reply_code, enhanced_status, reply_text, updated_at,
                                    attempt_id)
        SELECT s.first_mail + i, a.address, CASE WHEN r = 96 THEN 'BOUNCED' ELSE 'REFUSED' END, 550, '5.1.1',
               '550 5.1.1 no such user', c + interval '10 minutes 1 second', s.first_log + 2 * i + 1
        FROM (SELECT i, i % 100 AS r, s.t0 - interval '90 days' + (i * (interval '90 days' / s.finished)) AS c
              FROM generate_series(lo, hi) i) g
        CROSS JOIN LATERAL (VALUES ('user' || (i % 1000000) || '@example.com', 1),
                                   ('user' || ((i * 7) % 1000000) || '@example.org', 2)) a(address, n)
        WHERE r BETWEEN 92 AND 95 OR (r = 96 AND a.n = 1);
        COMMIT;
        RAISE NOTICE 'finished mails % to % of %', lo, hi, s.finished;
        lo := hi + 1;
    END LOOP;
    lo := 1;
    WHILE lo <= s.queued LOOP
        hi := least(lo + s.chunk - 1, s.queued);
        INSERT INTO mail_message (id, message_id, priority, created_at, from_address, from_name, to_addresses, subject,
                                  text_body, enqueued_by, smtp_account, header_count, attachment_count, expires_at)
        SELECT s.first_mail + s.finished + j, '<q' || (s.first_mail + s.finished + j) || '@history.mailqueue.test>', 4,
               s.t0 - interval '1 hour' + (j * (interval '1 hour' / s.queued)), 'news@mailqueue.test', 'History',
               'user' || (j % 1000000) || '@example.com', 'history queued ' || j, body, 'sender', 'mailqueue', 0, 0,
               s.t0 + interval '60 days'
        FROM generate_series(lo, hi) j;
        INSERT INTO mail_queue (mail_id, priority, created_at, due_at, attempts_left, expires_at, smtp_account, settled)
        SELECT s.first_mail + s.finished + j, 4, s.t0 - interval '1 hour' + (j * (interval '1 hour' / s.queued)),
               s.t0 + interval '1 day' + (j % 30) * interval '1 day', 5, s.t0 + interval '60 days', 'mailqueue', 0
        FROM generate_series(lo, hi) j;
        COMMIT;
        RAISE NOTICE 'queued mails % to % of %', lo, hi, s.queued;
        lo := hi + 1;
    END LOOP;
    -- the counts, as the stores would have kept them
    UPDATE mail_status_count c SET mails = c.mails + n.mails
    FROM (SELECT CASE WHEN i % 100 <= 91 OR i % 100 = 96 THEN 'SENT' WHEN i % 100 <= 95 THEN 'FAILED'
                      WHEN i % 100 = 97 THEN 'CANCELLED' WHEN i % 100 = 98 THEN 'EXPIRED' ELSE 'SUPPRESSED' END AS status,
                 count(*) AS mails
          FROM generate_series(1, s.finished) i GROUP BY 1) n
    WHERE c.status = n.status AND c.bucket = 0;
    COMMIT;
END
$$;
