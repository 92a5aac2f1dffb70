-- Delivery events and webhooks, campaigns (issue 17). MAIL_EVENT is a transactional outbox: each row is
-- written in the transaction of the state change it reports (sent, deferred, refused, failed, expired,
-- held, cancelled, suppressed, bounced, delayed, complained, unsubscribed), so a change that rolls back
-- leaves no event and a committed one never loses its event. Its id comes from an identity column: the
-- database numbers the events of one mail in the order they happened, whichever server wrote them.
-- PUBLISHED is 0 until the events have been handed to every webhook endpoint that wants them (a
-- WEBHOOK_DELIVERY row each). WORK_LEASE lets one server at a time do the webhook work; another takes
-- over when its lease runs out. CAMPAIGN_PAUSE holds the campaigns whose queued mail the claim leaves
-- alone. Same changes in every sql/<db>/V9.

ALTER TABLE MAIL_MESSAGE ADD COLUMN REFERENCE VARCHAR(255);
ALTER TABLE MAIL_MESSAGE ADD COLUMN CAMPAIGN VARCHAR(64);
ALTER TABLE MAIL_MESSAGE ADD COLUMN TAGS VARCHAR(700);
-- The caller's own key for a mail (MailRequest.reference), its campaign, its tags (comma separated).
CREATE INDEX MAIL_MESSAGE_CAMPAIGN_IX ON MAIL_MESSAGE (CAMPAIGN, STATUS);
CREATE INDEX MAIL_MESSAGE_REFERENCE_IX ON MAIL_MESSAGE (REFERENCE);

-- One row per event, written with the state change it reports.
CREATE TABLE MAIL_EVENT (
    ID                BIGINT AUTO_INCREMENT NOT NULL,  -- numbered by the database, in the order written
    MAIL_ID           BIGINT,  -- NULL for an unsubscribe, which names an address and a list
    EVENT_TYPE        VARCHAR(16) NOT NULL,
    OCCURRED_AT       DATETIME(6) NOT NULL,
    RECIPIENT         VARCHAR(254),  -- NULL: every recipient the change settled
    REPLY_CODE        INT,
    ENHANCED_STATUS   VARCHAR(16),
    DETAIL            VARCHAR(1000),  -- the server's reply or the reason
    NEXT_ATTEMPT_AT   DATETIME(6),  -- deferred: when the next attempt is due
    PUBLISHED         SMALLINT DEFAULT 0 NOT NULL,  -- 1 once handed to the webhook endpoints
    CONSTRAINT MAIL_EVENT_PK PRIMARY KEY (ID)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
CREATE INDEX MAIL_EVENT_PUBLISHED_IX ON MAIL_EVENT (PUBLISHED, ID);
CREATE INDEX MAIL_EVENT_MAIL_IX ON MAIL_EVENT (MAIL_ID, ID);

-- One row per event and endpoint that wants it: the delivery log.
CREATE TABLE WEBHOOK_DELIVERY (
    ENDPOINT          VARCHAR(64) NOT NULL,
    EVENT_ID          BIGINT NOT NULL,
    MAIL_ID           BIGINT,
    STATUS            VARCHAR(16) NOT NULL,  -- PENDING, DELIVERED, FAILED (given up)
    ATTEMPTS          INT NOT NULL,
    CREATED_AT        DATETIME(6) NOT NULL,
    NEXT_ATTEMPT_AT   DATETIME(6) NOT NULL,
    LAST_ATTEMPT_AT   DATETIME(6),
    HTTP_STATUS       INT,  -- the receiver's last answer; NULL when none came
    LAST_ERROR        VARCHAR(1000),
    CONSTRAINT WEBHOOK_DELIVERY_PK PRIMARY KEY (ENDPOINT, EVENT_ID),
    CONSTRAINT WEBHOOK_DELIVERY_STATUS_CK CHECK (STATUS IN ('PENDING', 'DELIVERED', 'FAILED'))
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
CREATE INDEX WEBHOOK_DELIVERY_DUE_IX ON WEBHOOK_DELIVERY (ENDPOINT, STATUS, EVENT_ID);
CREATE INDEX WEBHOOK_DELIVERY_MAIL_IX ON WEBHOOK_DELIVERY (ENDPOINT, MAIL_ID, EVENT_ID);

-- An endpoint's health, shared by the servers: failing since when, disabled since when.
CREATE TABLE WEBHOOK_ENDPOINT (
    NAME              VARCHAR(64) NOT NULL,
    FAILING_SINCE     DATETIME(6),  -- first failure since the last success
    DISABLED_AT       DATETIME(6),  -- set when it failed for mailqueue.webhook.disable-after.ms
    LAST_SUCCESS_AT   DATETIME(6),
    CONSTRAINT WEBHOOK_ENDPOINT_PK PRIMARY KEY (NAME)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Work that one server at a time does, by name (e.g. 'webhooks'): the holder and when its lease ends.
CREATE TABLE WORK_LEASE (
    NAME         VARCHAR(64) NOT NULL,
    OWNER        VARCHAR(200),
    EXPIRES_AT   DATETIME(6),
    CONSTRAINT WORK_LEASE_PK PRIMARY KEY (NAME)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Campaigns whose queued mail waits: the claim leaves it alone until the campaign is resumed.
CREATE TABLE CAMPAIGN_PAUSE (
    CAMPAIGN    VARCHAR(64) NOT NULL,
    PAUSED_AT   DATETIME(6) NOT NULL,
    PAUSED_BY   VARCHAR(200),
    CONSTRAINT CAMPAIGN_PAUSE_PK PRIMARY KEY (CAMPAIGN)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
