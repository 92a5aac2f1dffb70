package dev.mailqueue.bounce.control;

import dev.mailqueue.server.control.ServerResources;
import dev.mailqueue.settings.control.QueueSettings;
import jakarta.batch.api.chunk.AbstractItemReader;
import jakarta.batch.runtime.context.StepContext;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import jakarta.mail.Session;

import java.io.Serializable;

/**
 * Reads the messages of the bounce mailbox one by one, in mailbox order, and ends the step after the
 * last one the folder held when it was opened. Of a message larger than
 * {@code mailqueue.bounce.max-message-bytes} only the first bytes are read ({@link Mailbox#read}). The open {@link Mailbox} is shared with
 * {@link BounceReportWriter} through the step's transient data. No checkpoint is kept: a restart reads
 * the mailbox afresh, and what was recorded before is recognised by its key.
 */
@Named("BounceMailboxReader")
@Dependent // a new instance per step execution, as batch artifacts need
public class BounceMailboxReader extends AbstractItemReader {

    @Inject
    StepContext step;

    @Inject
    QueueSettings settings;

    private Mailbox mailbox;
    private int next;

    @Override
    public void open(Serializable checkpoint) throws Exception {
        Session session = ServerResources.lookup(settings.bounceMailbox(), Session.class,
                "the bounce mailbox: a <mailSession> with a store protocol (README, Bounces)");
        mailbox = Mailbox.open(session, settings.bounceFolder());
        step.setTransientUserData(mailbox);
    }

    @Override
    public Object readItem() throws Exception {
        while (next < mailbox.size()) {
            int index = next++;
            Mailbox.Read read = mailbox.read(index, settings.bounceLimits().maxMessageBytes());
            if (read != null) {
                return new FetchedReport(index, read.bytes(), read.truncated(), null);
            }
        }
        return null;
    }

    @Override
    public void close() {
        if (mailbox != null) {
            mailbox.close();
        }
    }
}
