-- The claim's plans on a backlog of 1,000,000 rows, on PostgreSQL; run by src/benchmark/run.sh:
--   psql -h 127.0.0.1 -U postgres -d test -X -v ON_ERROR_STOP=1 -v schema=mailqueue_bench_explain \
--        -v ddl=/path/to/all-migrations.sql -f explain-claim.sql
-- Works only in the scratch schema :schema (created here, dropped at the end); never in mailqueue or
-- mailqueue_it. Adapted from a colleague's index check (/tmp/ddl-check/explain-postgresql.sql).
--
-- Data, relative to "now" = 2025-11-21 12:00:00 (UTC wall clock), created_at 2 s apart, oldest first:
--   mails       1 .. 984,000  finished (one MAIL_ATTEMPT row with their status): SENT, except FAILED (i % 100 = 0)
--                             and CANCELLED (i % 100 = 1); no MAIL_QUEUE row
--   mails 984,001 .. 985,000  SENDING: a MAIL_QUEUE row held by one of 7 claimers; claimer 0's lease ran out a
--                             minute ago (143 mails)
--   mails 985,001 .. 1,000,000 QUEUED: a free MAIL_QUEUE row; 5,000 (i % 3 = 0) not due for 10 minutes (retry
--                             back-off), 10,000 due
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
\echo '-- loading 1,000,000 mails (INSERT ... SELECT FROM generate_series), their log rows and queue rows'
INSERT INTO mail_message (id, message_id, priority, created_at, from_address, to_addresses, subject, text_body)
SELECT i, '<' || i || '.bench@mailqueue.test>',
       CASE WHEN i % 10 = 0 THEN 9 WHEN i % 10 = 1 THEN 0 ELSE 4 END,
       TIMESTAMP :'now' - (1000000 - i) * INTERVAL '2 seconds',
       'noreply@mailqueue.test', 'user' || i || '@example.com', 'Your message number ' || i,
       'Hello,' || chr(10) || 'this is message ' || i || repeat(' lorem ipsum', 15)
FROM generate_series(1, 1000000) AS g(i);
INSERT INTO mail_attempt (mail_id, started_at, finished_at, server_instance, lease_owner, outcome, mail_status,
                          error)
SELECT i, m.created_at, m.created_at + INTERVAL '1 second', 'host/server', 'host/server#' || (i % 7),
       CASE WHEN i % 100 = 0 THEN 'FAILED' WHEN i % 100 = 1 THEN 'CANCELLED' ELSE 'SENT' END,
       CASE WHEN i % 100 = 0 THEN 'FAILED' WHEN i % 100 = 1 THEN 'CANCELLED' ELSE 'SENT' END,
       CASE WHEN i % 100 = 0 THEN '550 5.1.1 mailbox unavailable' END
FROM generate_series(1, 984000) AS g(i) JOIN mail_message m ON m.id = i;
INSERT INTO mail_claimer (id, owner, started_at, expires_at)
SELECT k, 'host/server#' || k, TIMESTAMP :'now' - INTERVAL '2 minutes',
       CASE WHEN k = 0 THEN TIMESTAMP :'now' - INTERVAL '1 minute' ELSE TIMESTAMP :'now' + INTERVAL '5 minutes' END
FROM generate_series(0, 6) AS g(k);
INSERT INTO mail_queue (mail_id, priority, created_at, due_at, attempts_left, smtp_account, claimer, claim_no)
SELECT m.id, m.priority, m.created_at,
       CASE WHEN m.id > 985000 AND m.id % 3 = 0 THEN TIMESTAMP :'now' + INTERVAL '10 minutes' ELSE m.created_at END,
       3, 'mailqueue', CASE WHEN m.id <= 985000 THEN m.id % 7 END, CASE WHEN m.id <= 985000 THEN 1 END
FROM mail_message m WHERE m.id > 984000;
ANALYZE mail_message;
ANALYZE mail_attempt;
ANALYZE mail_queue;
ANALYZE mail_claimer;
\timing off
SELECT status, count(*) FROM mail_state GROUP BY status ORDER BY status;
SELECT pg_size_pretty(pg_relation_size('mail_message')) AS message_heap,
       pg_size_pretty(pg_relation_size('mail_queue')) AS queue_heap,
       pg_size_pretty(pg_relation_size('mail_queue_claim_ix')) AS claim_ix,
       pg_size_pretty(pg_relation_size('mail_queue_claimer_ix')) AS claimer_ix;

\echo '-- 1. The claim (LeaseStrategy on PostgreSQL: one UPDATE ... RETURNING) as JDBC sends it for a server'
\echo '--    with one account: claimer, claim number, priority (4, the default), now, the account and the limit'
\echo '--    bound, LIMIT 100, after the planner settings of the claim transaction (OneStatement.KEY_PLANS). A claim'
\echo '--    runs this once per priority from 9 down until it has its limit (V19). Custom plan (what the first'
\echo '--    executions, and the plan cache here, use). Rolled back.'
PREPARE pick(bigint, int, int, timestamp, varchar, int) AS
UPDATE MAIL_QUEUE SET CLAIMER = $1, CLAIM_NO = $2
WHERE MAIL_ID = ANY (ARRAY(SELECT MAIL_ID FROM MAIL_QUEUE WHERE CLAIMER IS NULL AND PRIORITY = $3 AND DUE_AT <= $4
                     AND (SMTP_ACCOUNT IN ($5) OR SMTP_ACCOUNT IS NULL)
                     ORDER BY DUE_AT, MAIL_ID LIMIT $6 FOR UPDATE SKIP LOCKED))
RETURNING MAIL_ID;
BEGIN;
SET LOCAL enable_seqscan = off; SET LOCAL enable_sort = off; SET LOCAL enable_hashjoin = off;
SET LOCAL enable_mergejoin = off; SET LOCAL jit = off;
EXPLAIN (ANALYZE, BUFFERS, COSTS) EXECUTE pick(1, 2, 4, :'now', 'mailqueue', 100);
ROLLBACK;
\echo '--    The same with a forced generic plan (what a server-side prepared statement may settle on).'
SET plan_cache_mode = force_generic_plan;
BEGIN;
SET LOCAL enable_seqscan = off; SET LOCAL enable_sort = off; SET LOCAL enable_hashjoin = off;
SET LOCAL enable_mergejoin = off; SET LOCAL jit = off;
EXPLAIN (ANALYZE, BUFFERS, COSTS) EXECUTE pick(1, 2, 4, :'now', 'mailqueue', 100);
ROLLBACK;
RESET plan_cache_mode;

\echo '-- 2. Claimers whose lease ran out (ClaimStore, before a claim that takes expired ones back), and one'
\echo '--    such claimer''s mails; generic plans.'
PREPARE dead(timestamp) AS SELECT ID, OWNER FROM MAIL_CLAIMER WHERE EXPIRES_AT < $1;
PREPARE held(bigint) AS SELECT MAIL_ID, ATTEMPTS_LEFT FROM MAIL_QUEUE WHERE CLAIMER = $1;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (ANALYZE, BUFFERS, COSTS) EXECUTE dead(:'now');
EXPLAIN (ANALYZE, BUFFERS, COSTS) EXECUTE held(0);
RESET plan_cache_mode;

\echo '-- 3. What the timer counts every tick (ClaimStore.countClaimable: in no order on PostgreSQL, once per'
\echo '--    priority like the claim; here priority 4), after 6 executions.'
PREPARE due_ids(timestamp) AS
SELECT MAIL_ID FROM MAIL_QUEUE WHERE CLAIMER IS NULL AND PRIORITY = 4 AND DUE_AT <= $1 LIMIT 400;
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
