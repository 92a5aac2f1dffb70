-- Content (issue 4): attachments and custom header fields of a mail, one row each, in tables of their
-- own beside MAIL_MESSAGE. Same tables in every sql/<db>/V3. UNTESTED, like V1 here.
-- Written in the transaction that inserts the mail, so a mail is stored whole or not at all; deleted
-- with it (ON DELETE CASCADE), e.g. by the retention job. The primary key (MAIL_ID, SEQ_NO) keeps a
-- mail's parts in order and, leading with MAIL_ID, also indexes the foreign key (without it a delete
-- of a MAIL_MESSAGE row would lock the whole child table).

CREATE TABLE MAIL_ATTACHMENT (
    MAIL_ID       NUMBER(19)           NOT NULL,
    SEQ_NO        NUMBER(10)           NOT NULL,  -- position in the mail, from 0
    FILE_NAME     VARCHAR2(255 CHAR)   NOT NULL,
    CONTENT_TYPE  VARCHAR2(255 CHAR)   NOT NULL,  -- RFC 2045 5.1, e.g. application/pdf
    SIZE_BYTES    NUMBER(19)           NOT NULL,
    CONTENT       BLOB                 NOT NULL,
    CONSTRAINT MAIL_ATTACHMENT_PK PRIMARY KEY (MAIL_ID, SEQ_NO),
    CONSTRAINT MAIL_ATTACHMENT_MAIL_FK FOREIGN KEY (MAIL_ID) REFERENCES MAIL_MESSAGE (ID) ON DELETE CASCADE
);

CREATE TABLE MAIL_HEADER (
    MAIL_ID       NUMBER(19)           NOT NULL,
    SEQ_NO        NUMBER(10)           NOT NULL,  -- position in the mail, from 0
    HEADER_NAME   VARCHAR2(76 CHAR)    NOT NULL,  -- RFC 5322 3.6.8 field name
    -- 998 characters: at most 3,992 bytes in AL32UTF8, under the 4,000-byte VARCHAR2 limit
    HEADER_VALUE  VARCHAR2(998 CHAR)   NOT NULL,
    CONSTRAINT MAIL_HEADER_PK PRIMARY KEY (MAIL_ID, SEQ_NO),
    CONSTRAINT MAIL_HEADER_MAIL_FK FOREIGN KEY (MAIL_ID) REFERENCES MAIL_MESSAGE (ID) ON DELETE CASCADE
);
