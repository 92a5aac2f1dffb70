package dev.mailqueue.transport;

import dev.mailqueue.api.EnqueueReceipt;
import dev.mailqueue.api.FieldError;
import dev.mailqueue.api.InvalidMailException;
import dev.mailqueue.api.MailQueue;
import dev.mailqueue.api.MailQueueException;
import dev.mailqueue.api.RawMail;
import dev.mailqueue.api.SenderNotAllowedException;
import jakarta.mail.Address;
import jakarta.mail.Message;
import jakarta.mail.MessagingException;
import jakarta.mail.SendFailedException;
import jakarta.mail.Session;
import jakarta.mail.Transport;
import jakarta.mail.URLName;
import jakarta.mail.event.TransportEvent;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;

import javax.naming.InitialContext;
import javax.naming.NamingException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Jakarta Mail transport, protocol {@value #PROTOCOL}, that queues instead of sending: an application's unchanged
 * {@code Transport.send(message)} hands the message, as written by {@link MimeMessage#writeTo}, to the queue's
 * remote EJB ({@link MailQueue#enqueueRaw}) with the recipients {@code Transport.send} gives as the envelope. The
 * queue then sends it byte for byte, with its retries, accounts and limits.
 *
 * <p>The call is an EJB call in the caller's thread: inside a JTA transaction the enqueue joins it, so a
 * business transaction that rolls back sends nothing; outside one, {@code send} returns once the mail is
 * committed to the queue. The caller's identity is the EJB call's: it needs the role {@code mail-sender} (or
 * {@code mail-admin}) and may send only as its allow-list says.
 *
 * <p>Session properties, all optional:
 * <ul>
 *   <li>{@code mail.mailqueue.jndi}: the queue's remote view, by default {@value #DEFAULT_JNDI};</li>
 *   <li>{@code mail.mailqueue.from}: the envelope sender (as {@code mail.smtp.from} is SMTP's); by default the
 *       message's Sender, else its first From address;</li>
 *   <li>{@code mail.mailqueue.account}, {@code mail.mailqueue.campaign}: the queue's SMTP account and campaign
 *       for every message of the session.</li>
 * </ul>
 *
 * <p>Failures are what a sender of mail already handles: a message or envelope the queue refuses is a
 * {@link SendFailedException} whose invalid addresses are the recipients it refused (and whose valid unsent
 * addresses are the others); a sender the caller may not use is a {@link SendFailedException} with every
 * recipient unsent; a queue that cannot be reached or fails (its database away) is a {@link MessagingException}
 * with the cause, after which nothing was queued and sending again is safe.
 */
public class QueueTransport extends Transport {

    /** The protocol name a mail session names ({@code mail.transport.protocol}). */
    public static final String PROTOCOL = "mailqueue";

    /** The queue's remote view as the EAR deploys it. */
    public static final String DEFAULT_JNDI = "java:global/mailqueue/mailqueue-ejb/Mails!dev.mailqueue.api.MailQueueRemote";

    /** A refused recipient, as the queue names it. */
    private static final Pattern RECIPIENT_FIELD = Pattern.compile("envelopeTo\\[(\\d+)]");

    /**
     * @param session the application's mail session
     * @param url     the URL name Jakarta Mail gives its transports
     */
    public QueueTransport(Session session, URLName url) {
        super(session, url);
    }

    /** @return true: there is no connection to open; the queue is looked up when a message is sent */
    @Override
    protected boolean protocolConnect(String host, int port, String user, String password) {
        return true;
    }

    /**
     * Enqueues the message.
     *
     * @param message   a {@link MimeMessage}, with its changes saved (as {@link Transport#send} does)
     * @param addresses its recipients, 1 or more
     * @throws SendFailedException when the queue refuses the message, its sender or a recipient; nothing is queued
     * @throws MessagingException  when the message is not MIME, cannot be written, or the queue cannot be reached
     *                             or fails; nothing is queued
     */
    @Override
    public void sendMessage(Message message, Address[] addresses) throws MessagingException {
        if (!(message instanceof MimeMessage mime)) {
            throw new MessagingException("the mail queue takes MIME messages only, not " + message.getClass().getName());
        }
        if (addresses == null || addresses.length == 0) {
            throw new SendFailedException("no recipient");
        }
        RawMail raw = new RawMail(bytes(mime));
        List<String> envelope = new ArrayList<>(addresses.length);
        for (Address address : addresses) {
            envelope.add(address instanceof InternetAddress internet ? internet.getAddress() : address.toString());
        }
        raw.setEnvelopeTo(envelope);
        raw.setEnvelopeFrom(session.getProperty("mail." + PROTOCOL + ".from"));
        raw.setAccount(session.getProperty("mail." + PROTOCOL + ".account"));
        raw.setCampaign(session.getProperty("mail." + PROTOCOL + ".campaign"));
        try {
            EnqueueReceipt receipt = queue().enqueueRaw(raw, null);
            notifyTransportListeners(TransportEvent.MESSAGE_DELIVERED, addresses, new Address[0], new Address[0], message);
            if (session.getDebug()) {
                session.getDebugOut().println("mailqueue: queued as mail " + receipt.getId() + ", " + receipt.getMessageId());
            }
        } catch (InvalidMailException e) {
            throw refused(message, addresses, "the mail queue refused the message", e.getErrors(), e);
        } catch (SenderNotAllowedException e) {
            throw refused(message, addresses, "the mail queue refused the sender", e.getErrors(), e);
        } catch (MailQueueException | RuntimeException e) {
            notifyTransportListeners(TransportEvent.MESSAGE_NOT_DELIVERED, new Address[0], addresses, new Address[0], message);
            throw new MessagingException("the mail queue did not take the message: " + e, e);
        }
    }

    /** @return the refusal, the recipients the queue named as invalid, the others as valid but unsent */
    private SendFailedException refused(Message message, Address[] addresses, String what, List<FieldError> errors,
                                        Exception cause) {
        Set<Integer> invalid = new TreeSet<>();
        StringBuilder reasons = new StringBuilder(what);
        for (FieldError error : errors) {
            reasons.append("; ").append(error.getField()).append(": ").append(error.getMessage());
            Matcher recipient = RECIPIENT_FIELD.matcher(error.getField());
            if (recipient.matches() && Integer.parseInt(recipient.group(1)) < addresses.length) {
                invalid.add(Integer.valueOf(recipient.group(1)));
            }
        }
        List<Address> bad = new ArrayList<>();
        List<Address> unsent = new ArrayList<>();
        for (int i = 0; i < addresses.length; i++) {
            (invalid.contains(i) ? bad : unsent).add(addresses[i]);
        }
        Address[] badArray = bad.toArray(new Address[0]);
        Address[] unsentArray = unsent.toArray(new Address[0]);
        notifyTransportListeners(TransportEvent.MESSAGE_NOT_DELIVERED, new Address[0], unsentArray, badArray, message);
        return new SendFailedException(reasons.toString(), cause, new Address[0], unsentArray, badArray);
    }

    /** @return the queue's remote view, looked up at each send (so that a redeployed queue is found again) */
    private MailQueue queue() throws MessagingException {
        String name = session.getProperty("mail." + PROTOCOL + ".jndi");
        try {
            return (MailQueue) new InitialContext().lookup(name == null || name.isBlank() ? DEFAULT_JNDI : name);
        } catch (NamingException | ClassCastException e) {
            throw new MessagingException("the mail queue is not reachable at " + (name == null ? DEFAULT_JNDI : name), e);
        }
    }

    private static byte[] bytes(MimeMessage message) throws MessagingException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            message.writeTo(out);
        } catch (IOException e) {
            throw new MessagingException("the message could not be written", e);
        }
        return out.toByteArray();
    }
}
