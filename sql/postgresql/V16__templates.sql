-- Templates (issue 31): a template is a name and its versions; a version holds one row per locale (BCP 47
-- tag), one of them the template's default. Replacing a template inserts the next version, whose rows are
-- never changed; deleting it deletes every version. A queued mail holds what was rendered from a version,
-- so no mail reads this table. Same table in every sql/<db>/V16.
CREATE TABLE mail_template (
    name            VARCHAR(64)   NOT NULL,  -- MailLimits.TEMPLATE_NAME
    version         INTEGER       NOT NULL,  -- 1, 2, ...: the highest is the one mail is rendered from
    locale          VARCHAR(35)   NOT NULL,  -- BCP 47 tag as Locale.toLanguageTag writes it
    is_default      SMALLINT      NOT NULL,  -- 1: the locale a request falls back to
    subject         VARCHAR(998),            -- FreeMarker source of each part
    text_body       TEXT,
    html_body       TEXT,
    created_at      TIMESTAMP     NOT NULL,
    created_by      VARCHAR(255),
    CONSTRAINT mail_template_pk PRIMARY KEY (name, version, locale)
);
