-- Delivery events and webhooks, campaigns (issue 17). MAIL_EVENT is a transactional outbox: each row is
-- written in the transaction of the state change it reports (sent, deferred, refused, failed, expired,
-- held, cancelled, suppressed, bounced, delayed, complained, unsubscribed), so a change that rolls back
-- leaves no event and a committed one never loses its event. Its id comes from an identity column: the
-- database numbers the events of one mail in the order they happened, whichever server wrote them.
-- PUBLISHED is 0 until the events have been handed to every webhook endpoint that wants them (a
-- WEBHOOK_DELIVERY row each). WORK_LEASE lets one server at a time do the webhook work; another takes
-- over when its lease runs out. CAMPAIGN_PAUSE holds the campaigns whose queued mail the claim leaves
-- alone. Same changes in every sql/<db>/V9.

ALTER TABLE MAIL_MESSAGE ADD (REFERENCE VARCHAR2(255 CHAR));
ALTER TABLE MAIL_MESSAGE ADD (CAMPAIGN VARCHAR2(64 CHAR));
ALTER TABLE MAIL_MESSAGE ADD (TAGS VARCHAR2(700 CHAR));
-- The caller's own key for a mail (MailRequest.reference), its campaign, its tags (comma separated).
CREATE INDEX MAIL_MESSAGE_CAMPAIGN_IX ON MAIL_MESSAGE (CAMPAIGN, STATUS);
CREATE INDEX MAIL_MESSAGE_REFERENCE_IX ON MAIL_MESSAGE (REFERENCE);

-- One row per event, written with the state change it reports.
CREATE TABLE MAIL_EVENT (
    ID                NUMBER(19) GENERATED ALWAYS AS IDENTITY NOT NULL,  -- numbered by the database, in the order written
    MAIL_ID           NUMBER(19),  -- NULL for an unsubscribe, which names an address and a list
    EVENT_TYPE        VARCHAR2(16 CHAR) NOT NULL,
    OCCURRED_AT       TIMESTAMP NOT NULL,
    RECIPIENT         VARCHAR2(254 CHAR),  -- NULL: every recipient the change settled
    REPLY_CODE        NUMBER(10),
    ENHANCED_STATUS   VARCHAR2(16 CHAR),
    DETAIL            VARCHAR2(1000 CHAR),  -- the server's reply or the reason
    NEXT_ATTEMPT_AT   TIMESTAMP,  -- deferred: when the next attempt is due
    PUBLISHED         NUMBER(5) DEFAULT 0 NOT NULL,  -- 1 once handed to the webhook endpoints
    CONSTRAINT MAIL_EVENT_PK PRIMARY KEY (ID)
);
CREATE INDEX MAIL_EVENT_PUBLISHED_IX ON MAIL_EVENT (PUBLISHED, ID);
CREATE INDEX MAIL_EVENT_MAIL_IX ON MAIL_EVENT (MAIL_ID, ID);

-- One row per event and endpoint that wants it: the delivery log.
CREATE TABLE WEBHOOK_DELIVERY (
    ENDPOINT          VARCHAR2(64 CHAR) NOT NULL,
    EVENT_ID          NUMBER(19) NOT NULL,
    MAIL_ID           NUMBER(19),
    STATUS            VARCHAR2(16 CHAR) NOT NULL,  -- PENDING, DELIVERED, FAILED (given up)
    ATTEMPTS          NUMBER(10) NOT NULL,
    CREATED_AT        TIMESTAMP NOT NULL,
    NEXT_ATTEMPT_AT   TIMESTAMP NOT NULL,
    LAST_ATTEMPT_AT   TIMESTAMP,
    HTTP_STATUS       NUMBER(10),  -- the receiver's last answer; NULL when none came
    LAST_ERROR        VARCHAR2(1000 CHAR),
    CONSTRAINT WEBHOOK_DELIVERY_PK PRIMARY KEY (ENDPOINT, EVENT_ID),
    CONSTRAINT WEBHOOK_DELIVERY_STATUS_CK CHECK (STATUS IN ('PENDING', 'DELIVERED', 'FAILED'))
);
CREATE INDEX WEBHOOK_DELIVERY_DUE_IX ON WEBHOOK_DELIVERY (ENDPOINT, STATUS, EVENT_ID);
CREATE INDEX WEBHOOK_DELIVERY_MAIL_IX ON WEBHOOK_DELIVERY (ENDPOINT, MAIL_ID, EVENT_ID);

-- An endpoint's health, shared by the servers: failing since when, disabled since when.
CREATE TABLE WEBHOOK_ENDPOINT (
    NAME              VARCHAR2(64 CHAR) NOT NULL,
    FAILING_SINCE     TIMESTAMP,  -- first failure since the last success
    DISABLED_AT       TIMESTAMP,  -- set when it failed for mailqueue.webhook.disable-after.ms
    LAST_SUCCESS_AT   TIMESTAMP,
    CONSTRAINT WEBHOOK_ENDPOINT_PK PRIMARY KEY (NAME)
);

-- Work that one server at a time does, by name (e.g. 'webhooks'): the holder and when its lease ends.
CREATE TABLE WORK_LEASE (
    NAME         VARCHAR2(64 CHAR) NOT NULL,
    OWNER        VARCHAR2(200 CHAR),
    EXPIRES_AT   TIMESTAMP,
    CONSTRAINT WORK_LEASE_PK PRIMARY KEY (NAME)
);

-- Campaigns whose queued mail waits: the claim leaves it alone until the campaign is resumed.
CREATE TABLE CAMPAIGN_PAUSE (
    CAMPAIGN    VARCHAR2(64 CHAR) NOT NULL,
    PAUSED_AT   TIMESTAMP NOT NULL,
    PAUSED_BY   VARCHAR2(200 CHAR),
    CONSTRAINT CAMPAIGN_PAUSE_PK PRIMARY KEY (CAMPAIGN)
);
