-- Content (issue 4): attachments and custom header fields of a mail, one row each, in tables of their
-- own beside mail_message. Same tables in every sql/<db>/V3. Written in the transaction that inserts
-- the mail, so a mail is stored whole or not at all; deleted with it (ON DELETE CASCADE), e.g. by the
-- retention job. The primary key (mail_id, seq_no) keeps a mail's parts in order and serves both the
-- dispatcher's read of a claimed chunk (mail_id IN (...)) and the cascading delete.

CREATE TABLE mail_attachment (
    mail_id       BIGINT        NOT NULL,
    seq_no        INTEGER       NOT NULL,  -- position in the mail, from 0
    file_name     VARCHAR(255)  NOT NULL,
    content_type  VARCHAR(255)  NOT NULL,  -- RFC 2045 5.1, e.g. application/pdf
    size_bytes    BIGINT        NOT NULL,
    content       BYTEA         NOT NULL,  -- up to 1 GB; TOAST stores it out of line, compressed
    CONSTRAINT mail_attachment_pk PRIMARY KEY (mail_id, seq_no),
    CONSTRAINT mail_attachment_mail_fk FOREIGN KEY (mail_id) REFERENCES mail_message (id) ON DELETE CASCADE
);

CREATE TABLE mail_header (
    mail_id       BIGINT        NOT NULL,
    seq_no        INTEGER       NOT NULL,  -- position in the mail, from 0
    header_name   VARCHAR(76)   NOT NULL,  -- RFC 5322 3.6.8 field name
    header_value  VARCHAR(998)  NOT NULL,  -- RFC 5322 2.1.1, unencoded
    CONSTRAINT mail_header_pk PRIMARY KEY (mail_id, seq_no),
    CONSTRAINT mail_header_mail_fk FOREIGN KEY (mail_id) REFERENCES mail_message (id) ON DELETE CASCADE
);
