-- Raw MIME enqueue (issue 30): a mail handed over as a finished RFC 5322 message is stored as it came, in
-- MAIL_RAW, and sent byte for byte. Same table in every sql/<db>/V15. MAIL_MESSAGE.RAW_SIZE tells the claim,
-- without a join, that a mail is one (NULL: a composed mail, whose content is in MAIL_MESSAGE, MAIL_HEADER
-- and MAIL_ATTACHMENT). Written in the transaction that inserts the mail, never rewritten, deleted with it.
ALTER TABLE MAIL_MESSAGE ADD COLUMN RAW_SIZE INT;  -- bytes of the stored message; NULL: not raw

CREATE TABLE MAIL_RAW (
    MAIL_ID       BIGINT    NOT NULL,
    UTF8_HEADERS  SMALLINT  NOT NULL,  -- 1: a header field holds UTF-8 (RFC 6532): sent only with SMTPUTF8
    -- LONGBLOB, as MAIL_ATTACHMENT: max_allowed_packet must exceed mailqueue.http.max-request-bytes
    CONTENT       LONGBLOB  NOT NULL,  -- the message as it is sent: header section, empty line, body
    PRIMARY KEY (MAIL_ID),
    CONSTRAINT MAIL_RAW_MAIL_FK FOREIGN KEY (MAIL_ID) REFERENCES MAIL_MESSAGE (ID) ON DELETE CASCADE
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
