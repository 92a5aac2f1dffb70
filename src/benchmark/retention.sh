#!/usr/bin/env bash
# Retention benchmark (issue 51, point 3): how long the retention job takes to delete a day's mails, and to remove the
# content of another day's, out of a long history. See src/benchmark/README.md.
#
#   bash src/benchmark/retention.sh [finished mails]     (default 10000000)
#
# Starts the run server (mvn -P run,postgresql) with mailqueue.retention.days=DAYS and content-days=CONTENT_DAYS (and
# a schedule that does not fire), empties the queue's tables in schema mailqueue, fills FINISHED finished mails of the
# past 90 days with history-fill.sql (plain SQL; then VACUUM ANALYZE), so that about one day of them is older than
# DAYS and one more day older than CONTENT_DAYS. Then starts the mail-retention job through Liberty's batch REST API
# (as the console would), waits for it, and prints each step's time, the mails a second, and the share of a day the
# day's volume took. What the job did is checked with SQL of this script's own (MAIL_STATE, MAIL_MESSAGE), not by the
# job's exit status alone. Output: src/benchmark/target/retention-<time>/. KEEP=0 empties the tables at the end.
#
# Knobs (environment, defaults in brackets): DAYS [89], CONTENT_DAYS [88], CHUNK [500000 mails a fill transaction],
# KEEP [1].
set -euo pipefail

FINISHED=${1:-10000000}
DAYS=${DAYS:-89}
CONTENT_DAYS=${CONTENT_DAYS:-88}
CHUNK=${CHUNK:-500000}
KEEP=${KEEP:-1}
HTTP_PORT=9080
HTTPS_PORT=9443

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
out=$here/target/retention-$(date +%Y%m%d-%H%M%S)
psql_cmd=(psql -h 127.0.0.1 -U postgres -d test -X -q -v ON_ERROR_STOP=1)
batch=(curl -sk -u admin:admin -H 'Accept: application/json')

say() { printf 'retention.sh: %s\n' "$*"; }
die() { printf 'retention.sh: ERROR: %s\n' "$*" >&2; exit 1; }
sql() { "${psql_cmd[@]}" -Atc "$1"; }
source "$here/run-server.sh"

[[ $FINISHED =~ ^[0-9]+$ && $DAYS =~ ^[0-9]+$ && $CONTENT_DAYS =~ ^[0-9]+$ ]] || die "counts and days must be numbers"
(( CONTENT_DAYS < DAYS && DAYS < 90 )) || die "need CONTENT_DAYS < DAYS < 90 (the history spans 90 days)"
for tool in psql mvn java ss curl jq; do command -v "$tool" >/dev/null || die "$tool not found"; done
bench_ready "$out" $HTTP_PORT $HTTPS_PORT 3025

say "starting the server: mvn -P run,postgresql, retention $DAYS days, content $CONTENT_DAYS (log: $out/server.log)"
start_run_server "$out/server.log" -Dliberty.var.mailqueue.retention.days="$DAYS" \
    -Dliberty.var.mailqueue.retention.content-days="$CONTENT_DAYS" -Dliberty.var.mailqueue.retention.schedule='0 0 0 1 1 *'

fill_history "$FINISHED" "$CHUNK" "$out/fill.log"

# What the job should do, counted from the view of where each mail stands (not the job's own query).
due="(now() AT TIME ZONE 'UTC')"
to_delete=$(sql "SELECT count(*) FROM mailqueue.mail_state s JOIN mailqueue.mail_message m ON m.id = s.mail_id
    WHERE s.status IN ('SENT','FAILED','CANCELLED','EXPIRED','SUPPRESSED')
    AND s.finished_at < $due - interval '$DAYS days' AND m.created_at < $due - interval '$DAYS days'")
to_empty=$(sql "SELECT count(*) FROM mailqueue.mail_state s WHERE s.status IN ('SENT','FAILED','CANCELLED','EXPIRED','SUPPRESSED')
    AND s.finished_at >= $due - interval '$DAYS days' AND s.finished_at < $due - interval '$CONTENT_DAYS days'")
mails_before=$(sql "SELECT count(*) FROM mailqueue.mail_message")
say "mails $mails_before; older than $DAYS days (to delete) $to_delete; $CONTENT_DAYS to $DAYS days (content to remove) $to_empty"

say "starting mail-retention through the batch REST API"
job_start=$(sql "SELECT (now() AT TIME ZONE 'UTC')::text") # the job's cutoffs are this, or a little later, less the days
instance=$("${batch[@]}" -X POST -H 'Content-Type: application/json' \
    -d '{"applicationName":"mailqueue","moduleName":"mailqueue-ejb.jar","componentName":"RetentionScheduler","jobXMLName":"mail-retention"}' \
    "https://localhost:$HTTPS_PORT/ibm/api/batch/jobinstances" | tee "$out/instance.json" | jq -r .instanceId)
[[ $instance =~ ^[0-9]+$ ]] || { cat "$out/instance.json"; die "the job did not start"; }
started=$(date +%s.%N)
for ((i = 0; ; i++)); do
    status=$("${batch[@]}" "https://localhost:$HTTPS_PORT/ibm/api/batch/jobinstances/$instance/jobexecutions" \
        | tee "$out/executions.json" | jq -r '.[0].batchStatus')
    [[ $status == COMPLETED || $status == FAILED || $status == STOPPED ]] && break
    (( i < 3600 )) || die "the job still runs after an hour"
    sleep 1
done
wall=$(echo "$(date +%s.%N) - $started" | bc)
execution=$(jq -r '.[0].executionId' "$out/executions.json")
exit_status=$(jq -r '.[0].exitStatus' "$out/executions.json")
"${batch[@]}" "https://localhost:$HTTPS_PORT/ibm/api/batch/jobexecutions/$execution/stepexecutions" > "$out/steps.json"

# Counted again with the same conditions, as of the job's start: none may be left (its cutoffs are a little later, so it
# may take a few more than were counted before it started).
left_old=$(sql "SELECT count(*) FROM mailqueue.mail_state s JOIN mailqueue.mail_message m ON m.id = s.mail_id
    WHERE s.status IN ('SENT','FAILED','CANCELLED','EXPIRED','SUPPRESSED')
    AND s.finished_at < '$job_start'::timestamp - interval '$DAYS days'
    AND m.created_at < '$job_start'::timestamp - interval '$DAYS days'")
left_full=$(sql "SELECT count(*) FROM mailqueue.mail_state s JOIN mailqueue.mail_message m ON m.id = s.mail_id
    WHERE s.status IN ('SENT','FAILED','CANCELLED','EXPIRED','SUPPRESSED') AND m.content_removed_at IS NULL
    AND s.finished_at < '$job_start'::timestamp - interval '$CONTENT_DAYS days'")
emptied=$(sql "SELECT count(*) FROM mailqueue.mail_message WHERE content_removed_at IS NOT NULL
    AND text_body IS NULL AND html_body IS NULL")
mails_after=$(sql "SELECT count(*) FROM mailqueue.mail_message")

{
    echo "=== mailqueue retention benchmark ==="
    echo "commit              $(git -C "$repo" rev-parse --short HEAD)$(git -C "$repo" diff --quiet || echo ' (uncommitted changes)')"
    echo "history             $FINISHED finished mails over 90 days ($(( FINISHED / 90 )) a day); retention $DAYS days, content $CONTENT_DAYS"
    echo "machine             $(nproc) x $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
    echo "job                 execution $execution $status, exit status $exit_status, ${wall%.*} s from start to end (polled each second)"
    echo "checked with SQL    mails $mails_before -> $mails_after: $(( mails_before - mails_after )) deleted (counted before: $to_delete);"
    echo "                    $emptied without content (counted before: $to_empty); left behind, as of the job's start:"
    echo "                    $left_old mails to delete, $left_full mails with content"
    jq -r '.[] | select(.stepName != null) | [.stepName, .batchStatus, .exitStatus, .startTime, .endTime] | @tsv' "$out/steps.json" |
    while IFS=$'\t' read -r step st ex from to; do
        secs=$(( $(date -d "$to" +%s%3N) - $(date -d "$from" +%s%3N) ))
        n=$(grep -o '[0-9]*' <<< "${ex%%,*}" | head -1)
        [[ -n $n && $n -gt 0 ]] && rate=$(( n * 1000 / (secs > 0 ? secs : 1) )) || rate=0
        printf 'step %-22s %-9s %-36s %8.1f s  %7s mails/s  %7.4f%% of a day\n' "$step" "$st" "$ex" \
            "$(echo "$secs / 1000" | bc -l)" "$rate" "$(echo "$secs / 864000" | bc -l)"
    done
} | tee "$out/summary.txt"
