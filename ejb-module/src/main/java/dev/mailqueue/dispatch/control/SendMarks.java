package dev.mailqueue.dispatch.control;

import java.time.Instant;

/** Hears that a mail is about to be sent, and says what the end of its DATA waits for (the claimer). */
@FunctionalInterface
interface SendMarks {
    /**
     * @param mailId the mail about to be sent
     * @param at     now
     * @return the gate its final "." waits for
     */
    SendGate sendStarted(long mailId, Instant at);
}
