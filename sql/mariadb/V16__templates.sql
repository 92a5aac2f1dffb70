-- Templates (issue 31): a template is a name and its versions; a version holds one row per locale (BCP 47
-- tag), one of them the template's default. Replacing a template inserts the next version, whose rows are
-- never changed; deleting it deletes every version. A queued mail holds what was rendered from a version,
-- so no mail reads this table. Same table in every sql/<db>/V16.
CREATE TABLE MAIL_TEMPLATE (
    NAME            VARCHAR(64)   NOT NULL,  -- MailLimits.TEMPLATE_NAME
    VERSION         INT           NOT NULL,  -- 1, 2, ...: the highest is the one mail is rendered from
    LOCALE          VARCHAR(35)   NOT NULL,  -- BCP 47 tag as Locale.toLanguageTag writes it
    IS_DEFAULT      SMALLINT      NOT NULL,  -- 1: the locale a request falls back to
    SUBJECT         VARCHAR(998),            -- FreeMarker source of each part
    TEXT_BODY       MEDIUMTEXT,
    HTML_BODY       MEDIUMTEXT,
    CREATED_AT      DATETIME(6)   NOT NULL,
    CREATED_BY      VARCHAR(255),
    PRIMARY KEY (NAME, VERSION, LOCALE)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
