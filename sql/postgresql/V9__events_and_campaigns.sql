-- Delivery events and webhooks, campaigns (issue 17). MAIL_EVENT is a transactional outbox: each row is
-- written in the transaction of the state change it reports (sent, deferred, refused, failed, expired,
-- held, cancelled, suppressed, bounced, delayed, complained, unsubscribed), so a change that rolls back
-- leaves no event and a committed one never loses its event. Its id comes from an identity column: the
-- database numbers the events of one mail in the order they happened, whichever server wrote them.
-- PUBLISHED is 0 until the events have been handed to every webhook endpoint that wants them (a
-- WEBHOOK_DELIVERY row each). WORK_LEASE lets one server at a time do the webhook work; another takes
-- over when its lease runs out. CAMPAIGN_PAUSE holds the campaigns whose queued mail the claim leaves
-- alone. Same changes in every sql/<db>/V9.

ALTER TABLE mail_message ADD COLUMN reference VARCHAR(255);
ALTER TABLE mail_message ADD COLUMN campaign VARCHAR(64);
ALTER TABLE mail_message ADD COLUMN tags VARCHAR(700);
-- The caller's own key for a mail (MailRequest.reference), its campaign, its tags (comma separated).
CREATE INDEX mail_message_campaign_ix ON mail_message (campaign, status);
CREATE INDEX mail_message_reference_ix ON mail_message (reference);

-- One row per event, written with the state change it reports.
CREATE TABLE mail_event (
    id                BIGINT GENERATED ALWAYS AS IDENTITY NOT NULL,  -- numbered by the database, in the order written
    mail_id           BIGINT,  -- NULL for an unsubscribe, which names an address and a list
    event_type        VARCHAR(16) NOT NULL,
    occurred_at       TIMESTAMP NOT NULL,
    recipient         VARCHAR(254),  -- NULL: every recipient the change settled
    reply_code        INTEGER,
    enhanced_status   VARCHAR(16),
    detail            VARCHAR(1000),  -- the server's reply or the reason
    next_attempt_at   TIMESTAMP,  -- deferred: when the next attempt is due
    published         SMALLINT DEFAULT 0 NOT NULL,  -- 1 once handed to the webhook endpoints
    CONSTRAINT mail_event_pk PRIMARY KEY (id)
);
CREATE INDEX mail_event_published_ix ON mail_event (published, id);
CREATE INDEX mail_event_mail_ix ON mail_event (mail_id, id);

-- One row per event and endpoint that wants it: the delivery log.
CREATE TABLE webhook_delivery (
    endpoint          VARCHAR(64) NOT NULL,
    event_id          BIGINT NOT NULL,
    mail_id           BIGINT,
    status            VARCHAR(16) NOT NULL,  -- PENDING, DELIVERED, FAILED (given up)
    attempts          INTEGER NOT NULL,
    created_at        TIMESTAMP NOT NULL,
    next_attempt_at   TIMESTAMP NOT NULL,
    last_attempt_at   TIMESTAMP,
    http_status       INTEGER,  -- the receiver's last answer; NULL when none came
    last_error        VARCHAR(1000),
    CONSTRAINT webhook_delivery_pk PRIMARY KEY (endpoint, event_id),
    CONSTRAINT webhook_delivery_status_ck CHECK (status IN ('PENDING', 'DELIVERED', 'FAILED'))
);
CREATE INDEX webhook_delivery_due_ix ON webhook_delivery (endpoint, status, event_id);
CREATE INDEX webhook_delivery_mail_ix ON webhook_delivery (endpoint, mail_id, event_id);

-- An endpoint's health, shared by the servers: failing since when, disabled since when.
CREATE TABLE webhook_endpoint (
    name              VARCHAR(64) NOT NULL,
    failing_since     TIMESTAMP,  -- first failure since the last success
    disabled_at       TIMESTAMP,  -- set when it failed for mailqueue.webhook.disable-after.ms
    last_success_at   TIMESTAMP,
    CONSTRAINT webhook_endpoint_pk PRIMARY KEY (name)
);

-- Work that one server at a time does, by name (e.g. 'webhooks'): the holder and when its lease ends.
CREATE TABLE work_lease (
    name         VARCHAR(64) NOT NULL,
    owner        VARCHAR(200),
    expires_at   TIMESTAMP,
    CONSTRAINT work_lease_pk PRIMARY KEY (name)
);

-- Campaigns whose queued mail waits: the claim leaves it alone until the campaign is resumed.
CREATE TABLE campaign_pause (
    campaign    VARCHAR(64) NOT NULL,
    paused_at   TIMESTAMP NOT NULL,
    paused_by   VARCHAR(200),
    CONSTRAINT campaign_pause_pk PRIMARY KEY (campaign)
);
