-- The claim's plans on a backlog of 1,000,000 rows, on PostgreSQL; run by src/benchmark/run.sh:
--   psql -h 127.0.0.1 -U postgres -d test -X -v ON_ERROR_STOP=1 -v schema=mailqueue_bench_explain \
--        -v ddl=/path/to/all-migrations.sql -f explain-claim.sql
-- Works only in the scratch schema :schema (created here, dropped at the end); never in mailqueue or
-- mailqueue_it. Adapted from a colleague's index check (/tmp/ddl-check/explain-postgresql.sql).
--
-- Data, relative to "now" = 2025-11-21 12:00:00 (UTC wall clock), created_at 2 s apart, oldest first:
--   rows       1 .. 984,000  SENT, except FAILED (i % 100 = 0) and CANCELLED (i % 100 = 1)
--   rows 984,001 .. 985,000  SENDING; 100 of them (i % 10 = 0) with a lease expired a minute ago
--   rows 985,001 .. 1,000,000 QUEUED; 5,000 (i % 3 = 0) not due for 10 minutes (retry back-off), 10,000 due
--   priority: 9 when i % 10 = 0, 0 when i % 10 = 1, otherwise 4
\set now '2025-11-21 12:00:00'
\set ECHO none
\pset pager off
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS :"schema" CASCADE;
CREATE SCHEMA :"schema";
SET search_path = :"schema";
\i :ddl

\timing on
\echo '-- loading 1,000,000 rows (one INSERT ... SELECT FROM generate_series)'
INSERT INTO mail_message (id, message_id, status, priority, created_at, not_before, attempts_remaining,
        lease_owner, lease_expires_at, last_attempt_at, sent_at, from_address, to_addresses, subject,
        text_body, last_error)
SELECT i,
       '<' || i || '.bench@mailqueue.test>',
       s.status,
       CASE WHEN i % 10 = 0 THEN 9 WHEN i % 10 = 1 THEN 0 ELSE 4 END,
       c.created_at,
       CASE WHEN s.status = 'QUEUED' AND i % 3 = 0 THEN TIMESTAMP :'now' + INTERVAL '10 minutes'
            ELSE c.created_at END,
       CASE s.status WHEN 'QUEUED' THEN 3 WHEN 'SENDING' THEN 2 ELSE 0 END,
       CASE WHEN s.status = 'SENDING' THEN 'host/server#' || (i % 7) END,
       CASE WHEN s.status = 'SENDING' AND i % 10 = 0 THEN TIMESTAMP :'now' - INTERVAL '1 minute'
            WHEN s.status = 'SENDING' THEN TIMESTAMP :'now' + INTERVAL '5 minutes' END,
       CASE WHEN s.status IN ('SENT', 'FAILED') THEN c.created_at + INTERVAL '1 second' END,
       CASE WHEN s.status = 'SENT' THEN c.created_at + INTERVAL '1 second' END,
       'noreply@mailqueue.test',
       'user' || i || '@example.com',
       'Your message number ' || i,
       'Hello,' || chr(10) || 'this is message ' || i || repeat(' lorem ipsum', 15),
       CASE WHEN s.status = 'FAILED' THEN '550 5.1.1 mailbox unavailable' END
FROM generate_series(1, 1000000) AS g(i)
CROSS JOIN LATERAL (SELECT TIMESTAMP :'now' - (1000000 - i) * INTERVAL '2 seconds' AS created_at) AS c
CROSS JOIN LATERAL (SELECT CASE WHEN i > 985000 THEN 'QUEUED'
                                WHEN i > 984000 THEN 'SENDING'
                                WHEN i % 100 = 0 THEN 'FAILED'
                                WHEN i % 100 = 1 THEN 'CANCELLED'
                                ELSE 'SENT' END AS status) AS s;
ANALYZE mail_message;
\timing off
SELECT status, count(*) FROM mail_message GROUP BY status ORDER BY status;
SELECT pg_size_pretty(pg_relation_size('mail_message')) AS heap,
       pg_size_pretty(pg_relation_size('mail_message_claim_ix')) AS claim_ix,
       pg_size_pretty(pg_relation_size('mail_message_lease_ix')) AS lease_ix;

\echo '-- 1. The claim (LeaseStrategy.SkipLocked) as JDBC sends it for a server with one account: now, the'
\echo '--    account and the limit bound, LIMIT 100.'
\echo '--    Custom plan (what the first executions, and the plan cache here, use). Rolled back: it locks.'
PREPARE pick(timestamp, varchar, int) AS
SELECT ID FROM MAIL_MESSAGE
WHERE STATUS = 'QUEUED' AND NOT_BEFORE <= $1 AND ATTEMPTS_REMAINING > 0 AND (SMTP_ACCOUNT IN ($2) OR SMTP_ACCOUNT IS NULL)
ORDER BY PRIORITY DESC, CREATED_AT, ID LIMIT $3 FOR UPDATE SKIP LOCKED;
BEGIN;
EXPLAIN (ANALYZE, BUFFERS, COSTS) EXECUTE pick(:'now', 'mailqueue', 100);
ROLLBACK;
\echo '--    The same with a forced generic plan (what a server-side prepared statement may settle on).'
SET plan_cache_mode = force_generic_plan;
BEGIN;
EXPLAIN (ANALYZE, BUFFERS, COSTS) EXECUTE pick(:'now', 'mailqueue', 100);
ROLLBACK;
RESET plan_cache_mode;

\echo '-- 2. Expired leases no one holds (LeaseStrategy.EXPIRED), run before every claim; generic plan.'
PREPARE pick_expired(timestamp) AS
SELECT ID FROM MAIL_MESSAGE WHERE STATUS = 'SENDING' AND LEASE_EXPIRES_AT < $1 FOR UPDATE SKIP LOCKED;
SET plan_cache_mode = force_generic_plan;
BEGIN;
EXPLAIN (ANALYZE, BUFFERS, COSTS) EXECUTE pick_expired(:'now');
ROLLBACK;
RESET plan_cache_mode;

\echo '-- 3. What the timer counts every tick (MailStore.countClaimable), after 6 executions.'
PREPARE due_ids(timestamp) AS
SELECT ID FROM MAIL_MESSAGE WHERE STATUS = 'QUEUED' AND NOT_BEFORE <= $1 AND ATTEMPTS_REMAINING > 0
ORDER BY PRIORITY DESC, CREATED_AT, ID LIMIT 400;
EXECUTE due_ids(:'now') \g /dev/null
EXECUTE due_ids(:'now') \g /dev/null
EXECUTE due_ids(:'now') \g /dev/null
EXECUTE due_ids(:'now') \g /dev/null
EXECUTE due_ids(:'now') \g /dev/null
EXECUTE due_ids(:'now') \g /dev/null
EXPLAIN (ANALYZE, BUFFERS, COSTS) EXECUTE due_ids(:'now');
SELECT name, generic_plans, custom_plans FROM pg_prepared_statements WHERE name = 'due_ids';

RESET search_path;
DROP SCHEMA :"schema" CASCADE;
\echo '-- scratch schema dropped'
