-- Raw MIME enqueue (issue 30): a mail handed over as a finished RFC 5322 message is stored as it came, in
-- MAIL_RAW, and sent byte for byte. Same table in every sql/<db>/V15. MAIL_MESSAGE.RAW_SIZE tells the claim,
-- without a join, that a mail is one (NULL: a composed mail, whose content is in MAIL_MESSAGE, MAIL_HEADER
-- and MAIL_ATTACHMENT). Written in the transaction that inserts the mail, never rewritten, deleted with it.
ALTER TABLE mail_message ADD COLUMN raw_size INTEGER;  -- bytes of the stored message; NULL: not raw

CREATE TABLE mail_raw (
    mail_id       BIGINT    NOT NULL,
    utf8_headers  SMALLINT  NOT NULL,  -- 1: a header field holds UTF-8 (RFC 6532): sent only with SMTPUTF8
    content       BLOB      NOT NULL,  -- the message as it is sent: header section, empty line, body
    CONSTRAINT mail_raw_pk PRIMARY KEY (mail_id),
    CONSTRAINT mail_raw_mail_fk FOREIGN KEY (mail_id) REFERENCES mail_message (id) ON DELETE CASCADE
);
