package dev.mailqueue.submission.control;

import dev.mailqueue.address.control.InvalidAddressException;
import dev.mailqueue.address.control.MailboxParser;
import dev.mailqueue.budget.control.BodyBudget;
import dev.mailqueue.budget.control.InflightBudget;
import org.subethamail.smtp.DropConnectionException;
import org.subethamail.smtp.MessageContext;
import org.subethamail.smtp.MessageHandler;
import org.subethamail.smtp.RejectException;
import org.subethamail.smtp.server.Session;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One mail transaction of SMTP submission (MAIL FROM, RCPT TO, DATA): checks the envelope as it comes, reads the
 * whole message, and only then hands it to the queue, so a client that drops the connection before the final dot
 * leaves nothing queued. DATA is answered 250 once the queue's API answered that the mail is committed, with its
 * id and Message-ID in the reply; any other answer becomes the SMTP reply of {@link SubmissionReplies}.
 *
 * <p>The message is buffered only with a share of the application's {@link InflightBudget} (the one HTTP request
 * bodies draw on), as large as the client's declared SIZE (RFC 1870) or else {@code max-message-bytes}; a message
 * longer than its declared SIZE is refused 552. The share is given back once the message is read, before it is
 * handed to the queue's API, whose request guard charges the same bytes again for the request: holding both at
 * once could leave every share held by sessions whose requests wait for one.
 *
 * <p>The listener's trace field ({@code Received:}, RFC 5321 §4.4) is put in front of the message here, after the
 * idempotency key was computed from the client's own bytes: SubEthaSMTP's would be inside them, and it names the
 * session and the time.
 */
public final class SubmissionHandler implements MessageHandler {

    private static final Logger LOG = Logger.getLogger(SubmissionHandler.class.getName());

    /** How many times the size limit a client may send on before the connection is dropped. */
    static final int SKIP_FACTOR = 4;

    private final MessageContext context;
    private final SubmissionSessions sessions;
    private final QueueApiClient api;
    private final int maxMessages;
    private final int maxBytes;
    private final InflightBudget budget;
    private final List<String> recipients = new ArrayList<>();
    private String from = "";
    private SubmissionSessions.Login login;

    /**
     * @param context     the SMTP session
     * @param sessions    the sessions' logins and counts
     * @param api         the queue's API
     * @param maxMessages messages one session may send
     * @param maxBytes    bytes of one message
     * @param budget      the in-flight budget a message is read under
     */
    public SubmissionHandler(MessageContext context, SubmissionSessions sessions, QueueApiClient api, int maxMessages,
                             int maxBytes, InflightBudget budget) {
        this.context = context;
        this.sessions = sessions;
        this.api = api;
        this.maxMessages = maxMessages;
        this.maxBytes = maxBytes;
        this.budget = budget;
    }

    /**
     * @param address the reverse-path without angle brackets; empty for the null reverse-path
     * @throws RejectException 530 before AUTH, 451 past the session's message limit, 553 5.1.7 for an address the
     *                         queue would not take
     */
    @Override
    public void from(String address) throws RejectException {
        login = sessions.login(context.getSessionId());
        if (login == null) {
            throw SubmissionReplies.reject(530, "5.7.0", "authentication required");
        }
        if (!sessions.beginMessage(context.getSessionId(), maxMessages)) {
            throw SubmissionReplies.reject(451, "4.7.0", "no more than " + maxMessages
                    + " messages in one connection: send the rest in a new one");
        }
        if (!address.isEmpty()) {
            check(address, "5.1.7", "sender");
        }
        from = address;
    }

    /** @throws RejectException 553 5.1.3 for an address the queue would not take */
    @Override
    public void recipient(String address) throws RejectException {
        check(address, "5.1.3", "recipient");
        recipients.add(address);
    }

    /**
     * @return the text of the 250 reply: {@code 2.0.0 queued as <id> <Message-ID>}
     * @throws RejectException 552 5.3.4 for a message over the limit or its declared SIZE, 451 4.3.1 when the
     *                         in-flight budget has no room for it in time, 451 4.3.0 when the queue cannot take it
     *                         now, or the reply of the API's refusal
     * @throws IOException     when the client's connection fails while the message is read: nothing is queued
     */
    @Override
    public String data(InputStream data) throws RejectException, IOException {
        int declared = context instanceof Session session ? session.getDeclaredMessageSize() : 0;
        int limit = declared > 0 && declared < maxBytes ? declared : maxBytes;
        byte[] message;
        Optional<BodyBudget.Share> share = budget.take(limit);
        if (share.isEmpty()) {
            skipRest(data);
            LOG.warning(() -> "SMTP submission: answered 451 4.3.1 to a message of up to " + limit + " bytes:"
                    + " mailqueue.http.max-inflight-bytes stayed full for " + budget.waitMillis() + " ms");
            throw ended(SubmissionReplies.reject(451, "4.3.1", "the server is busy; try again later"));
        }
        try (BodyBudget.Share held = share.get()) {
            message = data.readNBytes(limit + 1);
            if (message.length > limit) {
                skipRest(data);
                throw ended(SubmissionReplies.reject(552, "5.3.4", "message larger than " + limit + " bytes"
                        + (limit < maxBytes ? " (its declared SIZE)" : "")));
            }
        }
        QueueApiClient.Answer answer;
        try {
            answer = api.enqueue(login.user(), login.password(), from, recipients, trace(), message);
        } catch (IOException e) {
            LOG.log(Level.WARNING, "SMTP submission: the queue's API did not take a message of " + login.user()
                    + "; answered 451", e);
            throw ended(SubmissionReplies.unavailable());
        }
        if (answer instanceof QueueApiClient.Queued queued) {
            return "2.0.0 queued as " + queued.id() + " " + queued.messageId() + (queued.duplicate() ? " (already)" : "");
        }
        throw ended(SubmissionReplies.refused((QueueApiClient.Refused) answer));
    }

    /**
     * Reads the rest of a message that is too large up to its terminating dot, so that none of it is taken for a
     * command (SubEthaSMTP reads on only after a 250), but no more than {@value #SKIP_FACTOR} times the limit.
     *
     * @throws DropConnectionException 421 when the client sends more than that: the connection is closed
     */
    private void skipRest(InputStream data) throws IOException, DropConnectionException {
        long left = (long) maxBytes * SKIP_FACTOR;
        byte[] buffer = new byte[64 * 1024];
        while (left > 0) {
            int read = data.read(buffer, 0, (int) Math.min(left, buffer.length));
            if (read < 0) {
                return;
            }
            left -= read;
        }
        throw new DropConnectionException(421, "4.3.4 message far larger than " + maxBytes + " bytes; closing");
    }

    /**
     * Ends the mail transaction before DATA is refused: RFC 5321 §4.1.1.4 ends it with the reply to the end of DATA,
     * whatever the reply, so the client's next MAIL begins a new one. SubEthaSMTP 7.1.7 resets the transaction only
     * after a 250 and would answer that MAIL with 503.
     *
     * @return the refusal, to throw
     */
    private RejectException ended(RejectException refusal) {
        if (context instanceof Session session) {
            session.resetMailTransaction();
        }
        return refusal;
    }

    /**
     * @return the listener's trace field (RFC 5321 §4.4): who connected (its EHLO name and address), this host, the
     *         protocol (ESMTPSA over TLS, else ESMTPA, RFC 3848), the session, the recipient when there is one, and
     *         the time
     */
    private byte[] trace() {
        StringBuilder field = new StringBuilder("Received: from ")
                .append(printable(context.getHelo().orElse("unknown")));
        if (context.getRemoteAddress() instanceof InetSocketAddress client && client.getAddress() != null) {
            field.append(" ([").append(client.getAddress().getHostAddress()).append("])");
        }
        field.append("\r\n\tby ").append(printable(context.getSMTPServer().getHostName())).append(" (mailqueue) with ")
                .append(context instanceof Session session && session.isTLSStarted() ? "ESMTPSA" : "ESMTPA")
                .append(" id ").append(printable(context.getSessionId()));
        if (recipients.size() == 1) {
            field.append("\r\n\tfor <").append(printable(recipients.get(0))).append('>');
        }
        field.append(";\r\n\t").append(DATE.format(ZonedDateTime.now())).append("\r\n");
        return field.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** RFC 5322 §3.3's date-time, e.g. {@code Sat, 5 Dec 2026 14:03:07 +0100}. */
    private static final DateTimeFormatter DATE = DateTimeFormatter.ofPattern("EEE, d MMM yyyy HH:mm:ss Z", Locale.US);

    /** @return the text with anything but printable ASCII (and a UTF-8 address's letters) made {@code ?}, cut to 255 */
    static String printable(String text) {
        StringBuilder clean = new StringBuilder();
        for (int i = 0; i < text.length() && clean.length() < 255; i++) {
            char c = text.charAt(i);
            clean.append(c > 0x20 && c != 0x7f && c != '(' && c != ')' && c != ';' ? c : '?');
        }
        return clean.toString();
    }

    @Override
    public void done() {
        // nothing held beyond the transaction
    }

    private static void check(String address, String enhanced, String what) throws RejectException {
        try {
            MailboxParser.parse(address);
        } catch (InvalidAddressException e) {
            throw SubmissionReplies.reject(553, enhanced, what + " " + e.getMessage());
        }
    }
}
