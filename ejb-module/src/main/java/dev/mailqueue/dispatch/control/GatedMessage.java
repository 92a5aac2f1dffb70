package dev.mailqueue.dispatch.control;

import jakarta.mail.MessagingException;
import jakarta.mail.Session;
import jakarta.mail.internet.MimeMessage;

import java.io.IOException;
import java.io.OutputStream;

/**
 * The MIME message of a queued mail as the claimer sends it. Two things set it apart:
 * <ul>
 *   <li>it keeps the Message-ID assigned at enqueue ({@link MimeMessage#saveChanges()} would write a new
 *       one on every attempt, and receivers could not recognise a resend);</li>
 *   <li>its content is written through a gate: Jakarta Mail's SMTP transport writes the message after
 *       the server's 354 to DATA and sends the terminating {@code CRLF.CRLF} only when
 *       {@link #writeTo(OutputStream, String[])} returns. Before it returns, the gate waits until the
 *       mail's send-started mark is committed. The mark's commit thus runs while MAIL FROM, RCPT TO and
 *       DATA go back and forth, and the server cannot have accepted the mail before the database knows
 *       it may have. If the mark is not committed in time, writing fails with
 *       {@link MarkNotRecordedException}; the transport then drops the connection without the
 *       terminating dot, and the server discards the message (RFC 5321 §4.1.1.4).</li>
 * </ul>
 * It also tells how far a send got: whether DATA content began, and whether the terminating dot may
 * have been sent. Not thread safe: one send at a time.
 */
class GatedMessage extends MimeMessage {

    private final String messageId;
    private GroupCommit.Ticket mark = GroupCommit.Ticket.DONE;
    private long markWaitMillis;
    private boolean dataBegun;
    private boolean dataEnded;

    GatedMessage(Session session, String messageId) {
        super(session);
        this.messageId = messageId;
    }

    @Override
    protected void updateMessageID() throws MessagingException {
        setHeader("Message-ID", messageId);
    }

    /**
     * Prepares the next send: its content is released to the server only once {@code mark} is done.
     *
     * @param mark       the send-started mark's ticket
     * @param waitMillis how long to wait for it at the end of DATA, ms
     */
    void arm(GroupCommit.Ticket mark, long waitMillis) {
        this.mark = mark;
        this.markWaitMillis = waitMillis;
        this.dataBegun = false;
        this.dataEnded = false;
    }

    /**
     * Writes the message, then waits for the send-started mark before letting the transport end DATA.
     *
     * @throws MarkNotRecordedException when the mark was not committed within the wait: nothing may be
     *                                  delivered, so the transport must not end DATA
     */
    @Override
    public void writeTo(OutputStream out, String[] ignoreList) throws IOException, MessagingException {
        dataBegun = true;
        super.writeTo(out, ignoreList);
        try {
            if (!mark.await(markWaitMillis)) {
                throw new MarkNotRecordedException(markWaitMillis);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MarkNotRecordedException(0);
        }
        dataEnded = true;
    }

    /** @return true once the transport began writing the content: the server's 354 came */
    boolean dataBegun() {
        return dataBegun;
    }

    /** @return true once the content was written and the gate opened: the terminating dot may have been sent */
    boolean dataEnded() {
        return dataEnded;
    }
}
