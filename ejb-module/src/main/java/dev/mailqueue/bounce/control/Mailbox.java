package dev.mailqueue.bounce.control;

import jakarta.mail.Flags;
import jakarta.mail.Folder;
import jakarta.mail.Message;
import jakarta.mail.MessagingException;
import jakarta.mail.Session;
import jakarta.mail.Store;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The bounce mailbox while the intake reads it: one folder of the store that the container's mail
 * session names (IMAP or POP3, plain or TLS, host, port and credentials all from the
 * {@code <mailSession>}), open for reading and deleting. A message is deleted only once its report is
 * recorded ({@link #delete}); deletions take effect when the folder is closed (IMAP EXPUNGE, POP3 QUIT),
 * so a crash before that leaves the messages to be read again, and recording them again changes nothing.
 * Not thread safe: one intake step at a time.
 */
public final class Mailbox implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(Mailbox.class.getName());

    private final Store store;
    private final Folder folder;
    private final Message[] messages;

    private Mailbox(Store store, Folder folder) throws MessagingException {
        this.store = store;
        this.folder = folder;
        this.messages = folder.getMessages();
    }

    /**
     * @param session    the bounce mailbox's container mail session
     * @param folderName the folder, e.g. INBOX
     * @return the folder, open read-write, with the messages it held at opening
     * @throws MessagingException when the store cannot be reached, refuses the credentials, or has no such folder
     */
    public static Mailbox open(Session session, String folderName) throws MessagingException {
        Store store = session.getStore();
        store.connect();
        try {
            Folder folder = store.getFolder(folderName);
            folder.open(Folder.READ_WRITE);
            return new Mailbox(store, folder);
        } catch (MessagingException | RuntimeException e) {
            store.close();
            throw e;
        }
    }

    /** @return how many messages the folder held when it was opened */
    public int size() {
        return messages.length;
    }

    /**
     * @param index 0 to {@link #size()} - 1
     * @return the message's bytes, or null when it is already marked deleted (a run that stopped before closing)
     * @throws MessagingException when the server cannot be read
     * @throws IOException        when the message cannot be read
     */
    public byte[] read(int index) throws MessagingException, IOException {
        Message message = messages[index];
        if (message.isExpunged() || message.isSet(Flags.Flag.DELETED)) {
            return null;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(Math.max(message.getSize(), 1024));
        message.writeTo(bytes);
        return bytes.toByteArray();
    }

    /**
     * Marks a message deleted; it goes when the folder closes.
     *
     * @param index as {@link #read}
     * @throws MessagingException when the server refuses
     */
    public void delete(int index) throws MessagingException {
        messages[index].setFlag(Flags.Flag.DELETED, true);
    }

    /** Closes the folder, removing the messages marked deleted, and the store. */
    @Override
    public void close() {
        try {
            if (folder.isOpen()) {
                folder.close(true);
            }
        } catch (MessagingException e) {
            LOG.log(Level.WARNING, "bounce mailbox: could not close the folder; its recorded messages stay"
                    + " and are recognised as recorded next time", e);
        } finally {
            try {
                store.close();
            } catch (MessagingException e) {
                LOG.log(Level.FINE, "bounce mailbox: store did not close cleanly", e);
            }
        }
    }
}
