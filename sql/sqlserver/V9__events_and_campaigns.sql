-- Delivery events and webhooks, campaigns (issue 17). MAIL_EVENT is a transactional outbox: each row is
-- written in the transaction of the state change it reports (sent, deferred, refused, failed, expired,
-- held, cancelled, suppressed, bounced, delayed, complained, unsubscribed), so a change that rolls back
-- leaves no event and a committed one never loses its event. Its id comes from an identity column: the
-- database numbers the events of one mail in the order they happened, whichever server wrote them.
-- PUBLISHED is 0 until the events have been handed to every webhook endpoint that wants them (a
-- WEBHOOK_DELIVERY row each). WORK_LEASE lets one server at a time do the webhook work; another takes
-- over when its lease runs out. CAMPAIGN_PAUSE holds the campaigns whose queued mail the claim leaves
-- alone. Same changes in every sql/<db>/V9.

ALTER TABLE MAIL_MESSAGE ADD REFERENCE NVARCHAR(255);
ALTER TABLE MAIL_MESSAGE ADD CAMPAIGN NVARCHAR(64);
ALTER TABLE MAIL_MESSAGE ADD TAGS NVARCHAR(700);
-- The caller's own key for a mail (MailRequest.reference), its campaign, its tags (comma separated).
CREATE INDEX MAIL_MESSAGE_CAMPAIGN_IX ON MAIL_MESSAGE (CAMPAIGN, STATUS);
CREATE INDEX MAIL_MESSAGE_REFERENCE_IX ON MAIL_MESSAGE (REFERENCE);

-- One row per event, written with the state change it reports.
CREATE TABLE MAIL_EVENT (
    ID                BIGINT IDENTITY(1,1) NOT NULL,  -- numbered by the database, in the order written
    MAIL_ID           BIGINT,  -- NULL for an unsubscribe, which names an address and a list
    EVENT_TYPE        NVARCHAR(16) NOT NULL,
    OCCURRED_AT       DATETIME2 NOT NULL,
    RECIPIENT         NVARCHAR(254),  -- NULL: every recipient the change settled
    REPLY_CODE        INT,
    ENHANCED_STATUS   NVARCHAR(16),
    DETAIL            NVARCHAR(1000),  -- the server's reply or the reason
    NEXT_ATTEMPT_AT   DATETIME2,  -- deferred: when the next attempt is due
    PUBLISHED         SMALLINT DEFAULT 0 NOT NULL,  -- 1 once handed to the webhook endpoints
    CONSTRAINT MAIL_EVENT_PK PRIMARY KEY (ID)
);
CREATE INDEX MAIL_EVENT_PUBLISHED_IX ON MAIL_EVENT (PUBLISHED, ID);
CREATE INDEX MAIL_EVENT_MAIL_IX ON MAIL_EVENT (MAIL_ID, ID);

-- One row per event and endpoint that wants it: the delivery log.
CREATE TABLE WEBHOOK_DELIVERY (
    ENDPOINT          NVARCHAR(64) NOT NULL,
    EVENT_ID          BIGINT NOT NULL,
    MAIL_ID           BIGINT,
    STATUS            NVARCHAR(16) NOT NULL,  -- PENDING, DELIVERED, FAILED (given up)
    ATTEMPTS          INT NOT NULL,
    CREATED_AT        DATETIME2 NOT NULL,
    NEXT_ATTEMPT_AT   DATETIME2 NOT NULL,
    LAST_ATTEMPT_AT   DATETIME2,
    HTTP_STATUS       INT,  -- the receiver's last answer; NULL when none came
    LAST_ERROR        NVARCHAR(1000),
    CONSTRAINT WEBHOOK_DELIVERY_PK PRIMARY KEY (ENDPOINT, EVENT_ID),
    CONSTRAINT WEBHOOK_DELIVERY_STATUS_CK CHECK (STATUS IN ('PENDING', 'DELIVERED', 'FAILED'))
);
CREATE INDEX WEBHOOK_DELIVERY_DUE_IX ON WEBHOOK_DELIVERY (ENDPOINT, STATUS, EVENT_ID);
CREATE INDEX WEBHOOK_DELIVERY_MAIL_IX ON WEBHOOK_DELIVERY (ENDPOINT, MAIL_ID, EVENT_ID);

-- An endpoint's health, shared by the servers: failing since when, disabled since when.
CREATE TABLE WEBHOOK_ENDPOINT (
    NAME              NVARCHAR(64) NOT NULL,
    FAILING_SINCE     DATETIME2,  -- first failure since the last success
    DISABLED_AT       DATETIME2,  -- set when it failed for mailqueue.webhook.disable-after.ms
    LAST_SUCCESS_AT   DATETIME2,
    CONSTRAINT WEBHOOK_ENDPOINT_PK PRIMARY KEY (NAME)
);

-- Work that one server at a time does, by name (e.g. 'webhooks'): the holder and when its lease ends.
CREATE TABLE WORK_LEASE (
    NAME         NVARCHAR(64) NOT NULL,
    OWNER        NVARCHAR(200),
    EXPIRES_AT   DATETIME2,
    CONSTRAINT WORK_LEASE_PK PRIMARY KEY (NAME)
);

-- Campaigns whose queued mail waits: the claim leaves it alone until the campaign is resumed.
CREATE TABLE CAMPAIGN_PAUSE (
    CAMPAIGN    NVARCHAR(64) NOT NULL,
    PAUSED_AT   DATETIME2 NOT NULL,
    PAUSED_BY   NVARCHAR(200),
    CONSTRAINT CAMPAIGN_PAUSE_PK PRIMARY KEY (CAMPAIGN)
);
