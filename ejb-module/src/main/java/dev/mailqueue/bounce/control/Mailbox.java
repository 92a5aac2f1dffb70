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
     * @param index    0 to {@link #size()} - 1
     * @param maxBytes the most bytes read of it, 1 or more: its size is asked first (IMAP {@code RFC822.SIZE},
     *                 POP3 {@code LIST}), and of a larger message only the first {@code maxBytes} are kept;
     *                 reading stops there (Angus Mail's IMAP store fetches a message in blocks as it is read)
     * @return the message's bytes, or null when it is already marked deleted (a run that stopped before closing)
     * @throws MessagingException when the server cannot be read
     * @throws IOException        when the message cannot be read
     */
    public Read read(int index, int maxBytes) throws MessagingException, IOException {
        Message message = messages[index];
        if (message.isExpunged() || message.isSet(Flags.Flag.DELETED)) {
            return null;
        }
        int size = message.getSize(); // -1 when the store cannot tell
        CappedBytes bytes = new CappedBytes(maxBytes, size > 0 ? Math.min(size, maxBytes) : 1024);
        try {
            message.writeTo(bytes);
        } catch (CappedBytes.Full full) {
            return new Read(bytes.toByteArray(), true);
        }
        return new Read(bytes.toByteArray(), size > maxBytes);
    }

    /**
     * A message as read.
     *
     * @param bytes     its bytes, or its first {@code maxBytes}
     * @param truncated true when the message was larger and only its first bytes were read
     */
    public record Read(byte[] bytes, boolean truncated) {
    }

    /** Collects written bytes up to a cap; past it, the write fails with {@link Full} and the rest is never asked for. */
    private static final class CappedBytes extends ByteArrayOutputStream {

        private final int cap;

        CappedBytes(int cap, int initial) {
            super(Math.max(initial, 1));
            this.cap = cap;
        }

        @Override
        public synchronized void write(int b) {
            if (count >= cap) {
                throw new Full();
            }
            super.write(b);
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            int room = cap - count;
            super.write(b, off, Math.min(len, room));
            if (len > room) {
                throw new Full();
            }
        }

        /** The cap was reached. */
        static final class Full extends RuntimeException {
            private static final long serialVersionUID = 1L;

            Full() {
                super("the message is larger than the bounce intake reads", null, false, false);
            }
        }
    }

    /**
     * Copies a message to the quarantine folder, created when missing, so that a report the intake could not
     * record stays for a person to look at while the inbox moves on. Only stores with folders (IMAP) have one.
     *
     * @param index  as {@link #read}
     * @param folder the quarantine folder's name
     * @return true when it was copied; false when the store has no such folder and cannot create it (POP3)
     * @throws MessagingException when the server refuses
     */
    public boolean quarantine(int index, String folder) throws MessagingException {
        Folder target = store.getFolder(folder);
        if (!target.exists() && !target.create(Folder.HOLDS_MESSAGES)) {
            return false;
        }
        this.folder.copyMessages(new Message[]{messages[index]}, target);
        return true;
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
