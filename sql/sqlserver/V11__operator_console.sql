-- The operator's console. DISPATCH_PAUSE holds the dispatch pauses every server obeys: scope
-- 'queue' (no mail is claimed) or 'account:<name>' (mail routed to that SMTP account is not claimed; for
-- the default account also mail without an account). The claim reads it with CAMPAIGN_PAUSE in one
-- query; paused mail waits QUEUED, no attempt spent. Two indexes for the console's charts (queue depth
-- and attempts per minute or hour, GET /api/admin/statistics/series): attempts by when they finished, and
-- mails by when they were created (also the retention job's scan). Same changes in every sql/<db>/V11.
-- UNTESTED, like V1.

CREATE TABLE DISPATCH_PAUSE (
    SCOPE       NVARCHAR(80) NOT NULL,   -- 'queue', or 'account:' and an account name (1 to 64 characters)
    PAUSED_AT   DATETIME2 NOT NULL,
    PAUSED_BY   NVARCHAR(200),           -- the operator
    CONSTRAINT DISPATCH_PAUSE_PK PRIMARY KEY (SCOPE)
);

CREATE INDEX MAIL_ATTEMPT_FINISHED_IX ON MAIL_ATTEMPT (FINISHED_AT);
CREATE INDEX MAIL_MESSAGE_CREATED_IX ON MAIL_MESSAGE (CREATED_AT);
