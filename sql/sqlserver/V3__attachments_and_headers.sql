-- Content (issue 4): attachments and custom header fields of a mail, one row each, in tables of their
-- own beside MAIL_MESSAGE. Same tables in every sql/<db>/V3. UNTESTED, like V1 here.
-- Written in the transaction that inserts the mail, so a mail is stored whole or not at all; deleted
-- with it (ON DELETE CASCADE), e.g. by the retention job. The primary key (MAIL_ID, SEQ_NO) keeps a
-- mail's parts in order and serves the dispatcher's read of a claimed chunk and the cascading delete.

CREATE TABLE MAIL_ATTACHMENT (
    MAIL_ID       BIGINT           NOT NULL,
    SEQ_NO        INT              NOT NULL,  -- position in the mail, from 0
    FILE_NAME     NVARCHAR(255)    NOT NULL,
    CONTENT_TYPE  NVARCHAR(255)    NOT NULL,  -- RFC 2045 5.1, e.g. application/pdf
    SIZE_BYTES    BIGINT           NOT NULL,
    CONTENT       VARBINARY(MAX)   NOT NULL,  -- up to 2 GB
    CONSTRAINT MAIL_ATTACHMENT_PK PRIMARY KEY (MAIL_ID, SEQ_NO),
    CONSTRAINT MAIL_ATTACHMENT_MAIL_FK FOREIGN KEY (MAIL_ID) REFERENCES MAIL_MESSAGE (ID) ON DELETE CASCADE
);

CREATE TABLE MAIL_HEADER (
    MAIL_ID       BIGINT           NOT NULL,
    SEQ_NO        INT              NOT NULL,  -- position in the mail, from 0
    HEADER_NAME   NVARCHAR(76)     NOT NULL,  -- RFC 5322 3.6.8 field name
    HEADER_VALUE  NVARCHAR(998)    NOT NULL,  -- RFC 5322 2.1.1, unencoded
    CONSTRAINT MAIL_HEADER_PK PRIMARY KEY (MAIL_ID, SEQ_NO),
    CONSTRAINT MAIL_HEADER_MAIL_FK FOREIGN KEY (MAIL_ID) REFERENCES MAIL_MESSAGE (ID) ON DELETE CASCADE
);
