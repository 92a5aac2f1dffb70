package dev.mailqueue.retention.control;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A retention step's exit status counts committed chunks, and the chunk in flight apart when the step failed. */
class ChunkTallyTest {

    @Test
    void aStepThatEndsWellCountsEveryChunk() {
        ChunkTally tally = new ChunkTally();
        tally.chunk(500);
        tally.chunk(500);
        tally.chunk(12);

        assertThat(tally.status("DELETED", false)).isEqualTo("DELETED=1012");
    }

    @Test
    void aStepThatFailedCountsTheChunkInFlightApart() {
        ChunkTally tally = new ChunkTally();
        tally.chunk(500);
        tally.chunk(300);

        assertThat(tally.status("CONTENT_REMOVED", true)).isEqualTo("CONTENT_REMOVED=500,UNCONFIRMED=300");
    }

    @Test
    void aStepWithoutChunksCountsNone() {
        assertThat(new ChunkTally().status("DELETED", false)).isEqualTo("DELETED=0");
    }
}
