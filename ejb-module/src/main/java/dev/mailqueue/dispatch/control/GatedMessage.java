package dev.mailqueue.dispatch.control;

import dev.mailqueue.dkim.control.DkimKey;
import jakarta.mail.Address;
import jakarta.mail.MessagingException;
import jakarta.mail.Session;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;
import jakarta.mail.internet.MimeUtility;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Enumeration;

/**
 * The MIME message of a queued mail as the claimer sends it. Two things set it apart:
 * <ul>
 *   <li>it keeps the Message-ID assigned at enqueue ({@link MimeMessage#saveChanges()} would write a new
 *       one on every attempt, and receivers could not recognise a resend);</li>
 *   <li>its content is written through a gate: Jakarta Mail's SMTP transport writes the message after
 *       the server's 354 to DATA and sends the terminating {@code CRLF.CRLF} only when
 *       {@link #writeTo(OutputStream, String[])} returns. Before it returns, it waits at the claimer's
 *       {@link SendGate}: until the outcome of the claimer's mail before this one is committed, and while
 *       the claimer holds its lease. That commit thus runs while MAIL FROM, RCPT TO and DATA go back and
 *       forth, and no two of the claimer's mails can be accepted while the database knows neither's fate.
 *       If the gate does not open in time, writing fails with
 *       {@link MarkNotRecordedException}; the transport then drops the connection without the
 *       terminating dot, and the server discards the message (RFC 5321 §4.1.1.4).</li>
 * </ul>
 * It also tells how far a send got: whether DATA content began, and whether the terminating dot may
 * have been sent.
 * <p>
 * It carries the envelope sender (SMTP MAIL FROM, RFC 5321 §4.1.1.2) of a VERP account
 * ({@link #envelopeSender(String)}). Standard Jakarta Mail has no per-message envelope sender, and Angus
 * Mail's {@code SMTPMessage.setEnvelopeFrom} is out of reach on Liberty: its {@code mail-2.1} feature declares
 * only the {@code jakarta.mail} packages as API, not {@code org.eclipse.angus.mail.smtp} (that was
 * {@code com.sun.mail.smtp; type=third-party} in {@code mail-2.0}), so no {@code apiTypeVisibility} shows it.
 * Angus Mail's SMTP transport, on both servers, takes MAIL FROM from the session's {@code mail.smtp.from} and,
 * when that is unset or empty, from the message's {@link #getFrom()} (the documented default of
 * {@code mail.smtp.from} in the {@code org.eclipse.angus.mail.smtp} package). So while an envelope sender is
 * set, {@link #getFrom()} answers it; the From header that is written stays the author's. The account's session
 * must then set no {@code mail.smtp.from}, which the accounts check refuses at start.
 * Not thread safe: one send at a time.
 */
class GatedMessage extends MimeMessage {

    static final byte[] CRLF = {'\r', '\n'};

    private final String messageId;
    private SendGate mark = SendGate.OPEN;
    private long markWaitMillis;
    private boolean dataBegun;
    private boolean dataEnded;
    private InternetAddress envelopeSender;
    private DkimKey signingKey;
    private byte[] signed; // the signed message of this attempt, once written: a later transaction sends it again

    GatedMessage(Session session, String messageId) {
        super(session);
        this.messageId = messageId;
    }

    @Override
    protected void updateMessageID() throws MessagingException {
        setHeader("Message-ID", messageId);
    }

    /**
     * @param address the envelope sender of the next sends, a bare {@code local@domain} checked by the caller
     *                (a VERP address: {@code dev.mailqueue.account.control.Accounts#envelopeSender}); null to use
     *                the session's (its {@code mail.smtp.from}, else the From header, as Angus Mail does)
     */
    void envelopeSender(String address) {
        if (address == null) {
            envelopeSender = null;
        } else {
            envelopeSender = new InternetAddress();
            envelopeSender.setAddress(address);
        }
    }

    /** @return the envelope sender set by {@link #envelopeSender(String)}, bare {@code local@domain}; null when none */
    String envelopeSender() {
        return envelopeSender == null ? null : envelopeSender.getAddress();
    }

    /**
     * @param key the DKIM key that signs the message each time it is written ({@link DkimSigning}); null: unsigned
     */
    void signWith(DkimKey key) {
        this.signingKey = key;
        this.signed = null;
    }

    /**
     * @return the envelope sender when one is set ({@link #envelopeSender(String)}), so that the SMTP
     *         transport sends it as MAIL FROM; else the From header's addresses
     */
    @Override
    public Address[] getFrom() throws MessagingException {
        return envelopeSender != null ? new Address[]{envelopeSender} : defaultSender();
    }

    /** @return the envelope sender when none is set: the From header's addresses */
    Address[] defaultSender() throws MessagingException {
        return super.getFrom();
    }

    /**
     * @return true when the message as a whole needs SMTPUTF8 whatever its recipients: a raw message whose
     *         header fields hold UTF-8 ({@link RawGatedMessage}); a composed one needs it only for an address
     */
    boolean needsSmtpUtf8() {
        return false;
    }

    /**
     * Prepares the next send: its content is released to the server only once {@code mark} opens.
     *
     * @param mark       what the end of DATA waits for
     * @param waitMillis how long to wait for it at the end of DATA, ms
     */
    void arm(SendGate mark, long waitMillis) {
        this.mark = mark;
        this.markWaitMillis = waitMillis;
        this.dataBegun = false;
        this.dataEnded = false;
        this.signed = null;
    }

    /**
     * Prepares the next transaction of the same send (another recipient's, {@link SeparateTransactions}): the
     * mark stays the one {@link #arm} gave, already awaited by the first transaction, and a signed message is
     * sent as it was signed for the first (only the envelope sender differs between them).
     */
    void rearm() {
        this.dataBegun = false;
        this.dataEnded = false;
    }

    /**
     * Writes the message, then waits at the gate before letting the transport end DATA.
     *
     * @throws MarkNotRecordedException when the gate did not open within the wait: nothing may be
     *                                  delivered, so the transport must not end DATA
     */
    @Override
    public void writeTo(OutputStream out, String[] ignoreList) throws IOException, MessagingException {
        dataBegun = true;
        if (signingKey == null) {
            writeMessage(out, ignoreList);
        } else {
            writeSigned(out, ignoreList);
        }
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

    /**
     * Writes the message with a {@code DKIM-Signature} field in front that signs it as written, after every field
     * the queue adds or rewrites (Message-ID, Date, List-Unsubscribe, a downgraded address field), so the
     * signature covers what the server gets. The message is written to memory first: the signature's body hash
     * must be known before the first header field goes out. It is signed once per attempt: the transactions of
     * one attempt ({@link #rearm}) send the same signed bytes.
     */
    private void writeSigned(OutputStream out, String[] ignoreList) throws IOException, MessagingException {
        if (signed == null) {
            ByteArrayOutputStream message = new ByteArrayOutputStream(8192);
            writeMessage(message, ignoreList);
            byte[] bytes = message.toByteArray();
            ByteArrayOutputStream whole = new ByteArrayOutputStream(bytes.length + 1024);
            whole.write(signingKey.signatureField(bytes).getBytes(StandardCharsets.US_ASCII));
            whole.write(CRLF);
            whole.write(bytes);
            signed = whole.toByteArray();
        }
        out.write(signed);
        out.flush();
    }

    /**
     * Writes the message itself: in UTF-8 where a header field needs it ({@link #writeUtf8}), else as
     * {@link MimeMessage#writeTo} does.
     */
    void writeMessage(OutputStream out, String[] ignoreList) throws IOException, MessagingException {
        if (hasUtf8Headers(ignoreList)) {
            writeUtf8(out, ignoreList);
        } else {
            super.writeTo(out, ignoreList);
        }
    }

    /**
     * Writes the header fields that are not ignored, each line in UTF-8 (ASCII stays ASCII), then the empty line
     * that ends the header section.
     */
    void writeHeaderLines(OutputStream out, String[] ignoreList) throws IOException, MessagingException {
        Enumeration<String> lines = getNonMatchingHeaderLines(ignoreList);
        while (lines.hasMoreElements()) {
            out.write(lines.nextElement().getBytes(StandardCharsets.UTF_8));
            out.write(CRLF);
        }
        out.write(CRLF);
    }

    /**
     * @return true when a header field that is written holds non-ASCII text: an SMTPUTF8 address (RFC 6532
     *         §3.2). Names, subjects and custom fields are RFC 2047-encoded, so only such an address does this.
     */
    boolean hasUtf8Headers(String[] ignoreList) throws MessagingException {
        Enumeration<String> lines = getNonMatchingHeaderLines(ignoreList);
        while (lines.hasMoreElements()) {
            if (!isAscii(lines.nextElement())) {
                return true;
            }
        }
        return false;
    }

    private static boolean isAscii(String line) {
        for (int i = 0; i < line.length(); i++) {
            if (line.charAt(i) > 0x7F) {
                return false;
            }
        }
        return true;
    }

    /**
     * Writes the header fields in UTF-8 (RFC 6532), then the content as {@link MimeMessage#writeTo} would.
     * Jakarta Mail writes UTF-8 header fields only when its session has {@code mail.mime.allowutf8}, and the
     * message is composed with the default account's session, not the one it is sent through; a message
     * with UTF-8 header fields is only ever sent over an SMTPUTF8 transaction ({@link SmtpUtf8Gate}).
     */
    private void writeUtf8(OutputStream out, String[] ignoreList) throws IOException, MessagingException {
        if (!saved) {
            saveChanges();
        }
        writeHeaderLines(out, ignoreList);
        OutputStream content = MimeUtility.encode(out, getEncoding());
        getDataHandler().writeTo(content);
        content.flush();
        out.flush();
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
