package dev.mailqueue.benchmark;

/**
 * The figures of one round of the measurement. CPU readings and database deltas are over their phase
 * only; a null one was not measured (the single-request phase when wrk is off).
 *
 * @param number           1, 2, ...
 * @param enqueued         bulk enqueue
 * @param enqueueCpu       CPU over the bulk enqueue
 * @param enqueueDb        PostgreSQL counters over the bulk enqueue
 * @param dispatched       the round's mails as dispatched
 * @param claimerTime      how the claimers spent their time
 * @param dispatchCpu      CPU from the due instant until nothing was left to send
 * @param dispatchDb       PostgreSQL counters over the dispatch
 * @param dispatchEarly    the counters before dispatch were read after the due instant (dispatch may have
 *                         begun: the figures then mix enqueue and dispatch)
 * @param idle             the idle-latency mails, or null when skipped
 * @param rawPerSecond     plain Jakarta Mail's rate
 * @param rawCpu           CPU over the raw baseline
 * @param sinkQueue        messages smtp-sink counted during enqueue and dispatch, -1 when not counted
 * @param sinkRaw          messages smtp-sink counted during the raw baseline, -1 when not counted
 * @param idleDb           PostgreSQL counters over a wait with the server idle (after the raw baseline)
 * @param post             single POSTs, or null
 * @param postCpu          CPU over the single POSTs
 * @param postDb           PostgreSQL counters over the single POSTs
 * @param posted           the single POSTs' mails in the table
 * @param get              the unauthenticated GETs, or null
 * @param getCpu           CPU over the GETs
 */
record Round(int number, BulkEnqueuer.Result enqueued, CpuClock.Reading enqueueCpu, PgCounters.Delta enqueueDb,
             QueueDatabase.DispatchFigures dispatched, QueueDatabase.ClaimerTime claimerTime,
             CpuClock.Reading dispatchCpu, PgCounters.Delta dispatchDb, boolean dispatchEarly,
             QueueDatabase.DispatchFigures idle, double rawPerSecond, CpuClock.Reading rawCpu, long sinkQueue,
             long sinkRaw, PgCounters.Delta idleDb, WrkLoad.Result post, CpuClock.Reading postCpu, PgCounters.Delta postDb, long posted,
             WrkLoad.Result get, CpuClock.Reading getCpu) {
}
