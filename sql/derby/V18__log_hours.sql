-- The log counted per clock hour (issue 51): the statistics answer's figures of the last 24 hours (sent and failed
-- per hour, attempts per account, in doubt, bounced, complained) read the hours that have ended from here, and only
-- the current hour from the log, instead of every log row of the last 24 hours at each call. LogHours fills it
-- from the log when it reads the statistics: each hour once, when it ended more than 5 minutes before, by the
-- server whose conditional UPDATE of mail_log_hour_mark moves counted_until past it (the others wait for that row
-- lock, then find nothing left to count). A row counts the log rows of one hour with one combination of the
-- three columns the figures are made of; '' stands for NULL (a row that set no status, or named no account).
-- Derived data: it may be emptied at any time (and mail_log_hour_mark set back to 1970) and is filled again.
-- Same tables in every sql/<db>/V18.
CREATE TABLE mail_log_hour (
    hour_start    TIMESTAMP    NOT NULL,  -- the hour's start, UTC, whole hours
    mail_status   VARCHAR(16)  NOT NULL,  -- MAIL_ATTEMPT.MAIL_STATUS, or ''
    outcome       VARCHAR(16)  NOT NULL,  -- MAIL_ATTEMPT.OUTCOME
    smtp_account  VARCHAR(64)  NOT NULL,  -- MAIL_ATTEMPT.SMTP_ACCOUNT, or ''
    entries       BIGINT       NOT NULL,  -- log rows of that hour (FINISHED_AT) with these three values
    CONSTRAINT mail_log_hour_pk PRIMARY KEY (hour_start, mail_status, outcome, smtp_account)
);
CREATE TABLE mail_log_hour_mark (
    id             SMALLINT     NOT NULL,  -- 1: one row
    counted_until  TIMESTAMP    NOT NULL,  -- the hours before this one are in mail_log_hour (those still kept)
    CONSTRAINT mail_log_hour_mark_pk PRIMARY KEY (id)
);
INSERT INTO mail_log_hour_mark (id, counted_until) VALUES (1, '1970-01-01 00:00:00');
