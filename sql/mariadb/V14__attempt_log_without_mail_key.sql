-- The attempt log (MAIL_ATTEMPT) no longer has a foreign key to MAIL_MESSAGE, as in every folder (the
-- reason, measured on PostgreSQL, is in postgresql/V14: checking the key on each log insert locks the mail's
-- row; InnoDB takes a shared lock on the parent record for it). The store's delete removes a deleted mail's
-- log rows itself; MAIL_ATTEMPT_MAIL_ID_IX (MAIL_ID, ID) serves it.
ALTER TABLE MAIL_ATTEMPT DROP FOREIGN KEY MAIL_ATTEMPT_MAIL_FK;
