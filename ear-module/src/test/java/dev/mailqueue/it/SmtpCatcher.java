package dev.mailqueue.it;

import com.icegreen.greenmail.configuration.GreenMailConfiguration;
import com.icegreen.greenmail.store.FolderException;
import com.icegreen.greenmail.store.StoredMessage;
import com.icegreen.greenmail.user.GreenMailUser;
import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.ServerSetup;
import jakarta.mail.MessagingException;
import jakarta.mail.internet.MimeMessage;

import java.util.Arrays;
import java.util.List;

/**
 * The SMTP server the test server sends to: GreenMail in this JVM on {@code it.smtp.port}, which
 * the test server's mailSession points at. Started and stopped by the tests, so a test can take the
 * server away and bring it back.
 */
final class SmtpCatcher {

    static final int PORT = Integer.getInteger("it.smtp.port", 3125);
    /** GreenMail's IMAP server: the test server's bounce mailbox (mail/bounces). */
    static final int IMAP_PORT = Integer.getInteger("it.imap.port", 3143);
    /** The bounce mailbox's user, as the test server's mail/bounces logs in. */
    static final String BOUNCES = "bounces@mailqueue.test";
    /** A second bounce mailbox, read only by the second test server of {@code IntakeCrashIT}. */
    static final String CRASH_BOUNCES = "crash-bounces@mailqueue.test";

    private GreenMail greenMail;

    void start() {
        greenMail = new GreenMail(new ServerSetup[]{new ServerSetup(PORT, "127.0.0.1", ServerSetup.PROTOCOL_SMTP),
                new ServerSetup(IMAP_PORT, "127.0.0.1", ServerSetup.PROTOCOL_IMAP)})
                .withConfiguration(GreenMailConfiguration.aConfig().withDisabledAuthentication()
                        .withUser(BOUNCES, BOUNCES, "bounces").withUser(CRASH_BOUNCES, CRASH_BOUNCES, "crash"));
        greenMail.start();
    }

    void stop() {
        stopKeeping();
    }

    /**
     * Stops the server, for a test that takes it away in the middle of a run.
     *
     * @return what it had received (a later start begins with an empty server)
     */
    List<MimeMessage> stopKeeping() {
        if (greenMail == null) {
            return List.of();
        }
        // Stopped first, then read: a mail accepted between a read and the stop would be lost with the
        // server (the queue has its 250 and counts it sent).
        // GreenMail.stop() starts its store afresh, so the old store is kept aside and read once stopped.
        var store = greenMail.getManagers().getImapHostManager();
        greenMail.stop();
        List<MimeMessage> received = store.getAllMessages().stream().map(StoredMessage::getMimeMessage).toList();
        greenMail = null;
        return received;
    }

    /** @return every message delivered so far, one per recipient mailbox */
    List<MimeMessage> received() {
        return greenMail == null ? List.of() : Arrays.asList(greenMail.getReceivedMessages());
    }

    /**
     * @return the messages in the inbox of {@code email}: what the SMTP envelope delivered to it. A message that
     *         an IMAP client (the bounce intake) expunges while this reads may leave a null in GreenMail's
     *         list: it is gone, and left out. A delivery during the read makes it read again.
     */
    List<MimeMessage> inbox(String email) {
        GreenMailUser user = greenMail.getUserManager().getUserByEmail(email);
        if (user == null) {
            return List.of();
        }
        while (true) {
            try {
                return greenMail.getManagers().getImapHostManager().getInbox(user).getMessages().stream()
                        .filter(java.util.Objects::nonNull)
                        .map(StoredMessage::getMimeMessage)
                        .filter(java.util.Objects::nonNull)
                        .toList();
            } catch (FolderException e) {
                throw new IllegalStateException(e);
            } catch (java.util.ConcurrentModificationException e) {
                // GreenMail 2.1 hands out a live view of the folder's list, unlocked: a delivery appended while
                // this read it. Read again (a test polling an inbox every few ms met this on PostgreSQL).
            }
        }
    }

    /**
     * Puts a message into a mailbox as if SMTP had delivered it there.
     *
     * @param email   the mailbox's user
     * @param message the message, delivered as it is
     */
    void deliver(String email, MimeMessage message) {
        GreenMailUser user = greenMail.getUserManager().getUserByEmail(email);
        if (user == null) {
            throw new IllegalStateException("no mailbox " + email);
        }
        user.deliver(message);
    }

    /** @return how many received messages carry this Message-ID */
    long countWithMessageId(String messageId) {
        return received().stream().filter(m -> messageId.equals(messageId(m))).count();
    }

    static String messageId(MimeMessage message) {
        try {
            return message.getMessageID();
        } catch (MessagingException e) {
            throw new IllegalStateException(e);
        }
    }
}
