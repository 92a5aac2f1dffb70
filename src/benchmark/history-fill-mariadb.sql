-- The MariaDB twin of history-fill.sql, for src/benchmark/retention.sh with DB=mariadb: the same shape of finished mail
-- (see history-fill.sql's head: 1 KB of text, two To recipients, by i mod 100 SENT, FAILED after a deferral, SENT and
-- BOUNCED, CANCELLED, EXPIRED, SUPPRESSED; 1.06 log rows and 0.12 recipient rows a mail), no queued mails, written in
-- database mailqueue by the procedure fill_history(finished, chunk) in transactions of chunk mails. Rows come from
-- MariaDB's Sequence engine (seq_1_to_N). Ids come from blocks reserved first by moving the sequences past them.
-- MAIL_ATTEMPT has no TX column on MariaDB (its event publishers read by id).
DROP PROCEDURE IF EXISTS fill_history;
DELIMITER //
CREATE PROCEDURE fill_history(IN finished BIGINT, IN chunk BIGINT)
BEGIN
    DECLARE first_mail BIGINT;
    DECLARE first_log BIGINT;
    DECLARE t0 DATETIME(6) DEFAULT UTC_TIMESTAMP(6);
    DECLARE lo BIGINT DEFAULT 1;
    DECLARE hi BIGINT;
    DECLARE span BIGINT DEFAULT 90 * 86400 * 1000000; -- 90 days, microseconds
    DECLARE body TEXT DEFAULT REPEAT(CONCAT('The quick brown fox jumps over the lazy dog; 0123456789 abcdefg', CHAR(10)), 16);
    SET first_mail = NEXTVAL(MAIL_MESSAGE_SEQ) + 1000;
    SET first_log = NEXTVAL(MAIL_LOG_SEQ) + 1000;
    -- SETVAL takes a number, not an expression: through a prepared statement
    SET @fill_sql = CONCAT('DO SETVAL(MAIL_MESSAGE_SEQ, ', first_mail + finished + 1000, ')');
    PREPARE fill_statement FROM @fill_sql;
    EXECUTE fill_statement;
    SET @fill_sql = CONCAT('DO SETVAL(MAIL_LOG_SEQ, ', first_log + 2 * finished + 1000, ')');
    PREPARE fill_statement FROM @fill_sql;
    EXECUTE fill_statement;
    DEALLOCATE PREPARE fill_statement;
    WHILE lo <= finished DO
        SET hi = LEAST(lo + chunk - 1, finished);
        START TRANSACTION;
        INSERT INTO MAIL_MESSAGE (ID, MESSAGE_ID, PRIORITY, CREATED_AT, FROM_ADDRESS, FROM_NAME, TO_ADDRESSES, SUBJECT,
                                  TEXT_BODY, ENQUEUED_BY, SMTP_ACCOUNT, HEADER_COUNT, ATTACHMENT_COUNT)
        SELECT first_mail + seq, CONCAT('<h', first_mail + seq, '@history.mailqueue.test>'), 4,
               t0 - INTERVAL 90 DAY + INTERVAL (seq * (span DIV finished)) MICROSECOND,
               'news@mailqueue.test', 'History',
               CONCAT('user', seq % 1000000, '@example.com,user', (seq * 7) % 1000000, '@example.org'),
               CONCAT('history mail ', seq), body, 'sender', 'mailqueue', 0, 0
        FROM seq_1_to_1000000000 WHERE seq BETWEEN lo AND hi;
        INSERT INTO MAIL_ATTEMPT (ID, MAIL_ID, STARTED_AT, FINISHED_AT, SERVER_INSTANCE, LEASE_OWNER, OUTCOME,
                                  SMTP_REPLY_CODE, SMTP_REPLY_TEXT, ERROR, ENHANCED_STATUS, SMTP_ACCOUNT, MAIL_STATUS,
                                  EVENT_TYPE, NEXT_ATTEMPT_AT, RESULTS)
        SELECT first_log + 2 * i, first_mail + i, c + INTERVAL 1 SECOND, c + INTERVAL 2 SECOND,
               'history/fill', 'history/fill#1',
               CASE WHEN r <= 91 OR r = 96 THEN 'SENT' WHEN r <= 95 THEN 'FAILED' WHEN r = 97 THEN 'CANCELLED'
                    WHEN r = 98 THEN 'EXPIRED' ELSE 'SUPPRESSED' END,
               CASE WHEN r <= 91 OR r = 96 THEN 250 WHEN r <= 95 THEN 451 END,
               CASE WHEN r <= 91 OR r = 96 THEN '250 2.0.0 Ok' WHEN r <= 95 THEN '451 4.7.1 try again later' END,
               CASE WHEN r BETWEEN 92 AND 95 THEN '451 4.7.1 try again later' WHEN r = 98 THEN 'expired'
                    WHEN r = 99 THEN 'every recipient on the suppression list' END,
               CASE WHEN r <= 91 OR r = 96 THEN '2.0.0' WHEN r <= 95 THEN '4.7.1' END,
               CASE WHEN r <= 96 THEN 'mailqueue' END,
               CASE WHEN r <= 91 OR r = 96 THEN 'SENT' WHEN r <= 95 THEN 'QUEUED' WHEN r = 97 THEN 'CANCELLED'
                    WHEN r = 98 THEN 'EXPIRED' ELSE 'SUPPRESSED' END,
               CASE WHEN r <= 91 OR r = 96 THEN 'SENT' WHEN r <= 95 THEN 'DEFERRED' WHEN r = 97 THEN 'CANCELLED'
                    WHEN r = 98 THEN 'EXPIRED' ELSE 'SUPPRESSED' END,
               CASE WHEN r BETWEEN 92 AND 95 THEN c + INTERVAL 10 MINUTE END, 0
        FROM (SELECT seq AS i, seq % 100 AS r, t0 - INTERVAL 90 DAY + INTERVAL (seq * (span DIV finished)) MICROSECOND AS c
              FROM seq_1_to_1000000000 WHERE seq BETWEEN lo AND hi) g;
        INSERT INTO MAIL_ATTEMPT (ID, MAIL_ID, STARTED_AT, FINISHED_AT, SERVER_INSTANCE, LEASE_OWNER, OUTCOME,
                                  SMTP_REPLY_CODE, SMTP_REPLY_TEXT, ERROR, ENHANCED_STATUS, SMTP_ACCOUNT, MAIL_STATUS,
                                  EVENT_TYPE, RECIPIENT, RESULTS)
        SELECT first_log + 2 * i + 1, first_mail + i, c + INTERVAL 10 MINUTE, c + INTERVAL 601 SECOND,
               'history/fill', CASE WHEN r = 96 THEN 'bounce-intake' ELSE 'history/fill#2' END,
               CASE WHEN r = 96 THEN 'BOUNCED' ELSE 'FAILED' END, 550,
               '550 5.1.1 no such user', CASE WHEN r = 96 THEN 'bounced: 5.1.1' ELSE '550 5.1.1 no such user' END,
               '5.1.1', CASE WHEN r <> 96 THEN 'mailqueue' END, CASE WHEN r <> 96 THEN 'FAILED' END,
               CASE WHEN r = 96 THEN 'BOUNCED' ELSE 'FAILED' END,
               CASE WHEN r = 96 THEN CONCAT('user', i % 1000000, '@example.com') END,
               CASE WHEN r = 96 THEN 1 ELSE 2 END
        FROM (SELECT seq AS i, seq % 100 AS r, t0 - INTERVAL 90 DAY + INTERVAL (seq * (span DIV finished)) MICROSECOND AS c
              FROM seq_1_to_1000000000 WHERE seq BETWEEN lo AND hi) g
        WHERE r BETWEEN 92 AND 96;
        INSERT INTO MAIL_RECIPIENT (MAIL_ID, ADDRESS, STATUS, REPLY_CODE, ENHANCED_STATUS, REPLY_TEXT, UPDATED_AT,
                                    ATTEMPT_ID)
        SELECT first_mail + g.i, CASE WHEN k.n = 1 THEN CONCAT('user', g.i % 1000000, '@example.com')
                                      ELSE CONCAT('user', (g.i * 7) % 1000000, '@example.org') END,
               CASE WHEN g.r = 96 THEN 'BOUNCED' ELSE 'REFUSED' END, 550, '5.1.1',
               '550 5.1.1 no such user', g.c + INTERVAL 601 SECOND, first_log + 2 * g.i + 1
        FROM (SELECT seq AS i, seq % 100 AS r, t0 - INTERVAL 90 DAY + INTERVAL (seq * (span DIV finished)) MICROSECOND AS c
              FROM seq_1_to_1000000000 WHERE seq BETWEEN lo AND hi) g
        JOIN (SELECT 1 AS n UNION ALL SELECT 2) k
        WHERE g.r BETWEEN 92 AND 95 OR (g.r = 96 AND k.n = 1);
        COMMIT;
        SET lo = hi + 1;
    END WHILE;
    START TRANSACTION;
    UPDATE MAIL_STATUS_COUNT c JOIN (
        SELECT CASE WHEN seq % 100 <= 91 OR seq % 100 = 96 THEN 'SENT' WHEN seq % 100 <= 95 THEN 'FAILED'
                    WHEN seq % 100 = 97 THEN 'CANCELLED' WHEN seq % 100 = 98 THEN 'EXPIRED' ELSE 'SUPPRESSED' END AS status,
               COUNT(*) AS mails
        FROM seq_1_to_1000000000 WHERE seq <= finished GROUP BY 1) n ON c.STATUS = n.status AND c.BUCKET = 0
    SET c.MAILS = c.MAILS + n.mails;
    COMMIT;
END //
DELIMITER ;
