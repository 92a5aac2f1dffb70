-- Several SMTP accounts (issue 4): which account a mail was routed to, which account made each
-- attempt, and the shared state of each account's rate limit. Same changes in every sql/<db>/V5.
-- UNTESTED, like V1: written from the Oracle documentation.
-- An account is a container <mailSession> (JNDI mail/<account>); its name is at most 64 characters.
-- NULL in SMTP_ACCOUNT: a row queued before V5, sent through the default account.
ALTER TABLE MAIL_MESSAGE ADD (SMTP_ACCOUNT VARCHAR2(64 CHAR));
ALTER TABLE MAIL_ATTEMPT ADD (SMTP_ACCOUNT VARCHAR2(64 CHAR));

-- One row per rate-limited account, locked (UPDATE LOCK_VERSION) by every claimer of every server
-- before it takes a send slot, so that the limits hold for all servers sharing this database.
CREATE TABLE SMTP_ACCOUNT_RATE (
    SMTP_ACCOUNT     VARCHAR2(64 CHAR)  NOT NULL,
    LOCK_VERSION     NUMBER(19)         NOT NULL,  -- bumped to take the row lock; no other meaning
    DAY_START        TIMESTAMP          NOT NULL,  -- UTC midnight of the day DAY_COUNT counts
    DAY_COUNT        NUMBER(10)         NOT NULL,  -- sends reserved on that day, for the per-day limit
    SLOWED_LIMIT     NUMBER(10),                   -- per-minute limit after 421 / 4.7.x slow-downs; NULL = as configured
    SLOWED_AT        TIMESTAMP,                    -- when SLOWED_LIMIT last went down or up
    CONSTRAINT SMTP_ACCOUNT_RATE_PK PRIMARY KEY (SMTP_ACCOUNT)
);

-- Per account one row per send allowed per minute. A send occupies a slot from just before MAIL FROM
-- until 60 s after the server's last reply (FREE_AT), so no 60 s window holds more sends than slots.
CREATE TABLE SMTP_ACCOUNT_SLOT (
    SMTP_ACCOUNT     VARCHAR2(64 CHAR)  NOT NULL,
    SLOT             NUMBER(10)         NOT NULL,  -- 0 .. per-minute limit - 1
    FREE_AT          TIMESTAMP          NOT NULL,  -- UTC; the slot may be taken again from then on
    CONSTRAINT SMTP_ACCOUNT_SLOT_PK PRIMARY KEY (SMTP_ACCOUNT, SLOT)
);
