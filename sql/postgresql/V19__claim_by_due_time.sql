-- The claim picks due mail by priority, then by the time it became due (issue 51): the claim index orders the free
-- rows of each priority by DUE_AT instead of CREATED_AT, and a claim reads each priority's range of due rows
-- (LeaseStrategy: PRIORITY = ? AND DUE_AT <= now, in DUE_AT order), so it reads what it takes and never the mail
-- not yet due: scheduled mail and mail waiting for its retry. With CREATED_AT order, a claim walked every free row of
-- the priority created before the due mail it took, due or not: 1,000,000 mails scheduled for the next days made
-- each claim read 1,000,000 index entries (500 ms). Mail sent at once is due when it is created: its order is as
-- before. The order a claim's mails are sent in is unchanged (priority, age; ClaimedMailReader, Leases).
-- Rebuilding the index locks MAIL_QUEUE against writes while it builds (seconds at a million queued rows).
-- Same index in every sql/<db>/V19.
DROP INDEX mail_queue_claim_ix;
CREATE INDEX mail_queue_claim_ix ON mail_queue (priority DESC, due_at, mail_id) WHERE claimer IS NULL;
