-- Several SMTP accounts (issue 4): which account a mail was routed to, which account made each
-- attempt, and the shared state of each account's rate limit. Same changes in every sql/<db>/V5.
-- An account is a container <mailSession> (JNDI mail/<account>); its name is at most 64 characters.
-- NULL in smtp_account: a row queued before V5, sent through the default account.
ALTER TABLE mail_message ADD COLUMN smtp_account VARCHAR(64);
ALTER TABLE mail_attempt ADD COLUMN smtp_account VARCHAR(64);

-- One row per rate-limited account, locked (UPDATE lock_version) by every claimer of every server
-- before it takes a send slot, so that the limits hold for all servers sharing this database.
CREATE TABLE smtp_account_rate (
    smtp_account     VARCHAR(64)  NOT NULL,
    lock_version     BIGINT       NOT NULL,  -- bumped to take the row lock; no other meaning
    day_start        TIMESTAMP    NOT NULL,  -- UTC midnight of the day day_count counts
    day_count        INTEGER      NOT NULL,  -- sends reserved on that day, for the per-day limit
    slowed_limit     INTEGER,                -- per-minute limit after 421 / 4.7.x slow-downs; NULL = as configured
    slowed_at        TIMESTAMP,              -- when slowed_limit last went down or up
    CONSTRAINT smtp_account_rate_pk PRIMARY KEY (smtp_account)
);

-- Per account one row per send allowed per minute. A send occupies a slot from just before MAIL FROM
-- until 60 s after the server's last reply (free_at), so no 60 s window holds more sends than slots.
CREATE TABLE smtp_account_slot (
    smtp_account     VARCHAR(64)  NOT NULL,
    slot             INTEGER      NOT NULL,  -- 0 .. per-minute limit - 1
    free_at          TIMESTAMP    NOT NULL,  -- UTC; the slot may be taken again from then on
    CONSTRAINT smtp_account_slot_pk PRIMARY KEY (smtp_account, slot)
);
