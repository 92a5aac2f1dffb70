-- The log counted per clock hour (issue 51): the statistics answer's figures of the last 24 hours (sent and failed
-- per hour, attempts per account, in doubt, bounced, complained) read the hours that have ended from here, and only
-- the current hour from the log, instead of every log row of the last 24 hours at each call. LogHours fills it
-- from the log when it reads the statistics: each hour once, when it ended more than 5 minutes before, by the
-- server whose conditional UPDATE of mail_log_hour_mark moves counted_until past it (the others wait for that row
-- lock, then find nothing left to count). A row counts the log rows of one hour with one combination of the
-- three columns the figures are made of; '' stands for NULL (a row that set no status, or named no account).
-- Derived data: it may be emptied at any time (and mail_log_hour_mark set back to 1970) and is filled again.
-- Same tables in every sql/<db>/V18.
CREATE TABLE MAIL_LOG_HOUR (
    HOUR_START    DATETIME(6)  NOT NULL,  -- the hour's start, UTC, whole hours
    MAIL_STATUS   VARCHAR(16)  NOT NULL,  -- MAIL_ATTEMPT.MAIL_STATUS, or ''
    OUTCOME       VARCHAR(16)  NOT NULL,  -- MAIL_ATTEMPT.OUTCOME
    SMTP_ACCOUNT  VARCHAR(64)  NOT NULL,  -- MAIL_ATTEMPT.SMTP_ACCOUNT, or ''
    ENTRIES       BIGINT       NOT NULL,  -- log rows of that hour (FINISHED_AT) with these three values
    CONSTRAINT MAIL_LOG_HOUR_PK PRIMARY KEY (HOUR_START, MAIL_STATUS, OUTCOME, SMTP_ACCOUNT)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
CREATE TABLE MAIL_LOG_HOUR_MARK (
    ID             SMALLINT     NOT NULL,  -- 1: one row
    COUNTED_UNTIL  DATETIME(6)  NOT NULL,  -- the hours before this one are in mail_log_hour (those still kept)
    CONSTRAINT MAIL_LOG_HOUR_MARK_PK PRIMARY KEY (ID)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
INSERT INTO MAIL_LOG_HOUR_MARK (ID, COUNTED_UNTIL) VALUES (1, '1970-01-01 00:00:00');
