-- The operator's console. DISPATCH_PAUSE holds the dispatch pauses every server obeys: scope
-- 'queue' (no mail is claimed) or 'account:<name>' (mail routed to that SMTP account is not claimed; for
-- the default account also mail without an account). The claim reads it with CAMPAIGN_PAUSE in one
-- query; paused mail waits QUEUED, no attempt spent. Indexes for the console's charts (queue depth and
-- attempts per minute or hour, GET /api/admin/statistics/series): attempts by when they finished, mails
-- by when they were created (also the retention job's scan), and, here only, the few rows that are
-- HELD or ended without an attempt of their own (the other databases find them by the claim index,
-- which starts with the status; PostgreSQL's holds only QUEUED rows). Same changes in every sql/<db>/V11.

CREATE TABLE dispatch_pause (
    scope       VARCHAR(80) NOT NULL,   -- 'queue', or 'account:' and an account name (1 to 64 characters)
    paused_at   TIMESTAMP NOT NULL,
    paused_by   VARCHAR(200),           -- the operator
    CONSTRAINT dispatch_pause_pk PRIMARY KEY (scope)
);

-- BRIN, not B-tree, here: PostgreSQL writes an entry into every B-tree index of a table for each
-- non-HOT update, and a mail's claim, send-started mark and outcome are three such updates (its status is
-- indexed). A B-tree on CREATED_AT cost the benchmark's dispatch about a third more PostgreSQL CPU per mail
-- (0.884 -> 1.192 ms; BRIN: 0.940 ms). Rows are appended in time order, so a block range index finds
-- the recent ones the charts read; its ranges only widen as updated rows move.
CREATE INDEX mail_attempt_finished_ix ON mail_attempt USING brin (finished_at);
CREATE INDEX mail_message_created_ix ON mail_message USING brin (created_at);
-- Partial: a row enters it only on those rare changes (never on a claim or an attempt).
CREATE INDEX mail_message_settled_ix ON mail_message (status)
    WHERE status IN ('HELD', 'EXPIRED', 'CANCELLED', 'SUPPRESSED');
