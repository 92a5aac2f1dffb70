-- Content (issue 4): attachments and custom header fields of a mail, one row each, in tables of their
-- own beside MAIL_MESSAGE. Same tables in every sql/<db>/V3. Written in the transaction that inserts
-- the mail, so a mail is stored whole or not at all; deleted with it (ON DELETE CASCADE), e.g. by the
-- retention job. The primary key (MAIL_ID, SEQ_NO) keeps a mail's parts in order and serves the
-- dispatcher's read of a claimed chunk (MAIL_ID IN (...)), the foreign key and the cascading delete.
-- Upper-case table names as in V1 (case sensitive on Linux).

CREATE TABLE MAIL_ATTACHMENT (
    MAIL_ID       BIGINT         NOT NULL,
    SEQ_NO        INT            NOT NULL,  -- position in the mail, from 0
    FILE_NAME     VARCHAR(255)   NOT NULL,
    CONTENT_TYPE  VARCHAR(255)   NOT NULL,  -- RFC 2045 5.1, e.g. application/pdf
    SIZE_BYTES    BIGINT         NOT NULL,
    -- LONGBLOB (4 GB): MEDIUMBLOB would stop at 16 MiB. One attachment travels in one packet, so
    -- max_allowed_packet (16 MiB by default) must exceed mailqueue.attachments.max-total-bytes.
    CONTENT       LONGBLOB       NOT NULL,
    PRIMARY KEY (MAIL_ID, SEQ_NO),
    CONSTRAINT MAIL_ATTACHMENT_MAIL_FK FOREIGN KEY (MAIL_ID) REFERENCES MAIL_MESSAGE (ID) ON DELETE CASCADE
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

CREATE TABLE MAIL_HEADER (
    MAIL_ID       BIGINT         NOT NULL,
    SEQ_NO        INT            NOT NULL,  -- position in the mail, from 0
    HEADER_NAME   VARCHAR(76)    NOT NULL,  -- RFC 5322 3.6.8 field name
    HEADER_VALUE  VARCHAR(998)   NOT NULL,  -- RFC 5322 2.1.1, unencoded
    PRIMARY KEY (MAIL_ID, SEQ_NO),
    CONSTRAINT MAIL_HEADER_MAIL_FK FOREIGN KEY (MAIL_ID) REFERENCES MAIL_MESSAGE (ID) ON DELETE CASCADE
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
