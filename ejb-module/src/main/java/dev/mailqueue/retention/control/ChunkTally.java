package dev.mailqueue.retention.control;

/**
 * What a retention writer's chunks have done, for its exit status: a chunk's rows count once the next chunk starts
 * (the previous chunk committed, or the step would have ended) or the step ends without an exception; those of the
 * chunk in flight when the step failed are unconfirmed, their transaction most likely rolled back.
 */
final class ChunkTally {

    private long committed;
    private long pending;

    /** @param rows rows the chunk now written changed, not yet committed */
    void chunk(long rows) {
        committed += pending;
        pending = rows;
    }

    /**
     * @param name   the figure's name, e.g. {@code DELETED}
     * @param failed whether the step ended with an exception
     * @return {@code <name>=<committed>}, or {@code <name>=<committed>,UNCONFIRMED=<in flight>} when it failed
     */
    String status(String name, boolean failed) {
        if (failed) {
            return name + "=" + committed + ",UNCONFIRMED=" + pending;
        }
        committed += pending;
        pending = 0;
        return name + "=" + committed;
    }
}
