package dev.mailqueue.benchmark;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads how many messages smtp-sink has received so far from its {@code -c} output: a line
 * {@code sess=.. quit=.. mesg=N} (ended by a carriage return) after every session, QUIT and message.
 * An independent count of what the SMTP server accepted.
 */
public final class SmtpSinkCounter {

    private static final Pattern MESSAGES = Pattern.compile("mesg=(\\d+)");
    private static final int TAIL_BYTES = 256;

    private final Path log;

    /** @param log the file smtp-sink's standard output goes to */
    public SmtpSinkCounter(Path log) {
        this.log = log;
    }

    /**
     * @return the messages received since smtp-sink started, 0 before the first
     * @throws IOException when the file cannot be read
     */
    public long messages() throws IOException {
        try (RandomAccessFile file = new RandomAccessFile(log.toFile(), "r")) {
            long length = file.length();
            int size = (int) Math.min(TAIL_BYTES, length);
            byte[] tail = new byte[size];
            file.seek(length - size);
            file.readFully(tail);
            Matcher m = MESSAGES.matcher(new String(tail, StandardCharsets.US_ASCII));
            long last = 0;
            while (m.find()) {
                last = Long.parseLong(m.group(1));
            }
            return last;
        }
    }
}
