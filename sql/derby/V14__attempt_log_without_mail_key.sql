-- The attempt log (MAIL_ATTEMPT) no longer has a foreign key to MAIL_MESSAGE, as in every folder (the
-- reason, measured on PostgreSQL, is in postgresql/V14: checking the key on each log insert locks the mail's
-- row). The store's delete removes a deleted mail's log rows itself; MAIL_ATTEMPT_MAIL_IX (mail_id, id) serves
-- it.
ALTER TABLE mail_attempt DROP CONSTRAINT mail_attempt_mail_fk;
