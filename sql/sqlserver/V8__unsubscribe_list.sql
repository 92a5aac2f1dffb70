-- One-click unsubscribe (issue 11): the mailing list a mail belongs to (MailRequest.unsubscribeList), NULL
-- for mail of no list. The enqueue and the claim both leave out recipients on the suppression list for all
-- mail or for this list: an unsubscribe (or a bounce) that lands while a mail waits in the queue still
-- keeps it from that address. Same change in every sql/<db>/V8.
ALTER TABLE MAIL_MESSAGE ADD UNSUBSCRIBE_LIST NVARCHAR(64);
