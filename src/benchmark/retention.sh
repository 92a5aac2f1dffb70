#!/usr/bin/env bash
# Retention benchmark (issue 51, point 3): how long the retention job takes to delete a day's mails, and to remove the
# content of another day's, out of a long history. See src/benchmark/README.md.
#
#   bash src/benchmark/retention.sh [finished mails]     (default 10000000)
#
# Starts the run server (mvn -P run,$RUN_DB: postgresql by default, or mariadb) with mailqueue.retention.days=DAYS and
# content-days=CONTENT_DAYS (and a schedule that does not fire), empties the queue's tables in schema (MariaDB:
# database) mailqueue, fills FINISHED finished mails of the past 90 days with history-fill.sql (MariaDB:
# history-fill-mariadb.sql; plain SQL, then the tables analysed), so that about one day of them is older than
# DAYS and one more day older than CONTENT_DAYS. Then starts the mail-retention job through Liberty's batch REST API
# (as the console would), waits for it, and prints each step's time, the mails a second, and the share of a day the
# day's volume took. What the job did is checked with SQL of this script's own (MAIL_STATE, MAIL_MESSAGE), not by the
# job's exit status alone. Output: src/benchmark/target/retention-<time>/. KEEP=0 empties the tables at the end.
#
# Knobs (environment, defaults in brackets): DAYS [89], CONTENT_DAYS [88], CHUNK [500000 mails a fill transaction],
# KEEP [1], FILL [1; 0 keeps the history a previous run left], RUN_DB [postgresql; or mariadb], DISPATCH [0 mails a
# second]. With DISPATCH > 0 the script measures the retention job beside a dispatch: it enqueues DISPATCH mails a
# second (batches of a tenth of that, ten a second) for SECONDS_A_ROUND [60] s alone, then again while the job runs, and
# prints for each round the time from each mail's enqueue to its SENT (MAIL_STATE; p50, p99, max): a claim slowed by
# the job's deletes shows there.
set -euo pipefail

FINISHED=${1:-10000000}
DAYS=${DAYS:-89}
CONTENT_DAYS=${CONTENT_DAYS:-88}
CHUNK=${CHUNK:-500000}
KEEP=${KEEP:-1}
DISPATCH=${DISPATCH:-0}
SECONDS_A_ROUND=${SECONDS_A_ROUND:-60}
HTTP_PORT=9080
HTTPS_PORT=9443

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
out=$here/target/retention-$(date +%Y%m%d-%H%M%S)
psql_cmd=(psql -h 127.0.0.1 -U postgres -d test -X -q -v ON_ERROR_STOP=1)
batch=(curl -sk -u admin:admin -H 'Accept: application/json')

say() { printf 'retention.sh: %s\n' "$*"; }
die() { printf 'retention.sh: ERROR: %s\n' "$*" >&2; exit 1; }
source "$here/run-server.sh"
sql() { db_sql "$1"; }

[[ $FINISHED =~ ^[0-9]+$ && $DAYS =~ ^[0-9]+$ && $CONTENT_DAYS =~ ^[0-9]+$ ]] || die "counts and days must be numbers"
(( CONTENT_DAYS < DAYS && DAYS < 90 )) || die "need CONTENT_DAYS < DAYS < 90 (the history spans 90 days)"
for tool in psql mysql mvn java ss curl jq python3; do command -v "$tool" >/dev/null || die "$tool not found"; done
bench_ready "$out" $HTTP_PORT $HTTPS_PORT 3025

say "starting the server: mvn -P run,$RUN_DB, retention $DAYS days, content $CONTENT_DAYS (log: $out/server.log)"
start_run_server "$out/server.log" -Dliberty.var.mailqueue.retention.days="$DAYS" \
    -Dliberty.var.mailqueue.retention.content-days="$CONTENT_DAYS" -Dliberty.var.mailqueue.retention.schedule='0 0 0 1 1 *'

fill_history "$FINISHED" "$CHUNK" "$out/fill.log"

# What the job should do, counted from the view of where each mail stands (not the job's own query). Times are UTC
# literals worked out here, so that the same SQL runs on PostgreSQL and MariaDB (their names fold to the same tables).
before_days=$(date -u -d "now - $DAYS days" '+%F %T')
before_content=$(date -u -d "now - $CONTENT_DAYS days" '+%F %T')
final="('SENT','FAILED','CANCELLED','EXPIRED','SUPPRESSED')"
to_delete=$(sql "SELECT COUNT(*) FROM mailqueue.MAIL_STATE s JOIN mailqueue.MAIL_MESSAGE m ON m.ID = s.MAIL_ID
    WHERE s.STATUS IN $final AND s.FINISHED_AT < '$before_days' AND m.CREATED_AT < '$before_days'")
to_empty=$(sql "SELECT COUNT(*) FROM mailqueue.MAIL_STATE s WHERE s.STATUS IN $final
    AND s.FINISHED_AT >= '$before_days' AND s.FINISHED_AT < '$before_content'")
mails_before=$(sql "SELECT COUNT(*) FROM mailqueue.MAIL_MESSAGE")
say "mails $mails_before; older than $DAYS days (to delete) $to_delete; $CONTENT_DAYS to $DAYS days (content to remove) $to_empty"

# dispatch_round TAG SECONDS: enqueues DISPATCH mails a second for SECONDS s, waits until all are SENT, and prints
# the enqueue-to-SENT times of its mails. Its mails are told apart by a subject starting with TAG.
dispatch_round() {
    local tag=$1 secs=$2 per_batch=$(( DISPATCH / 10 > 0 ? DISPATCH / 10 : 1 )) i n=0 body
    body=$(python3 -c "import json,sys; print(json.dumps([{'from':'bench@example.com','to':['r%d@sink.example' % i],
        'subject':'$tag %d' % i,'text':'x' * 1024} for i in range($per_batch)]))")
    for ((i = 0; i < secs * 10; i++)); do
        curl -sk -u sender:sender -o /dev/null -w '%{http_code}\n' -H 'Content-Type: application/json' -d "$body" \
            "http://localhost:$HTTP_PORT/api/mails/batch" | grep -q '^202$' || die "a batch of $tag was refused"
        n=$(( n + per_batch ))
        sleep 0.1
    done
    for ((i = 0; ; i++)); do
        [[ $(sql "SELECT COUNT(*) FROM mailqueue.MAIL_MESSAGE m JOIN mailqueue.MAIL_STATE s ON s.MAIL_ID = m.ID
            WHERE m.SUBJECT LIKE '$tag %' AND s.STATUS = 'SENT'") -ge $n ]] && break
        (( i < 600 )) || die "the mails of $tag were not all sent after 10 minutes"
        sleep 1
    done
    # enqueue to SENT, ms, a line a mail; the percentiles worked out here (MariaDB has no ordered-set aggregates)
    if [[ $RUN_DB == mariadb ]]; then
        took="TIMESTAMPDIFF(MICROSECOND, m.CREATED_AT, s.FINISHED_AT) / 1000"
    else
        took="EXTRACT(EPOCH FROM s.FINISHED_AT - m.CREATED_AT) * 1000"
    fi
    sql "SELECT $took FROM mailqueue.MAIL_MESSAGE m JOIN mailqueue.MAIL_STATE s ON s.MAIL_ID = m.ID
        WHERE m.SUBJECT LIKE '$tag %'" | python3 -c "
import sys
d = sorted(float(line) for line in sys.stdin if line.strip())
q = lambda p: d[min(len(d) - 1, int(p * len(d)))]
print('$tag: %d mails, enqueue to SENT p50 %.0f ms, p99 %.0f ms, max %.0f ms' % (len(d), q(0.5), q(0.99), d[-1]))" \
        | tee -a "$out/dispatch.txt"
}
if (( DISPATCH > 0 )); then
    say "dispatch alone: $DISPATCH mails a second for $SECONDS_A_ROUND s"
    dispatch_round alone "$SECONDS_A_ROUND"
fi

say "starting mail-retention through the batch REST API"
job_days=$(date -u -d "now - $DAYS days" '+%F %T') # the job's cutoffs are these, or a little later
job_content=$(date -u -d "now - $CONTENT_DAYS days" '+%F %T')
instance=$("${batch[@]}" -X POST -H 'Content-Type: application/json' \
    -d '{"applicationName":"mailqueue","moduleName":"mailqueue-ejb.jar","componentName":"RetentionScheduler","jobXMLName":"mail-retention"}' \
    "https://localhost:$HTTPS_PORT/ibm/api/batch/jobinstances" | tee "$out/instance.json" | jq -r .instanceId)
[[ $instance =~ ^[0-9]+$ ]] || { cat "$out/instance.json"; die "the job did not start"; }
started=$(date +%s.%N)
if (( DISPATCH > 0 )); then
    say "dispatch beside the job: $DISPATCH mails a second for $SECONDS_A_ROUND s"
    dispatch_round beside "$SECONDS_A_ROUND" &
    beside_pid=$!
fi
for ((i = 0; ; i++)); do
    status=$("${batch[@]}" "https://localhost:$HTTPS_PORT/ibm/api/batch/jobinstances/$instance/jobexecutions" \
        | tee "$out/executions.json" | jq -r '.[0].batchStatus')
    [[ $status == COMPLETED || $status == FAILED || $status == STOPPED ]] && break
    (( i < 3600 )) || die "the job still runs after an hour"
    sleep 1
done
wall=$(echo "$(date +%s.%N) - $started" | bc)
if (( DISPATCH > 0 )); then
    wait "$beside_pid" || die "the dispatch beside the job failed"
fi
execution=$(jq -r '.[0].executionId' "$out/executions.json")
exit_status=$(jq -r '.[0].exitStatus' "$out/executions.json")
"${batch[@]}" "https://localhost:$HTTPS_PORT/ibm/api/batch/jobexecutions/$execution/stepexecutions" > "$out/steps.json"

# Counted again with the same conditions, as of the job's start: none may be left (its cutoffs are a little later, so it
# may take a few more than were counted before it started).
left_old=$(sql "SELECT COUNT(*) FROM mailqueue.MAIL_STATE s JOIN mailqueue.MAIL_MESSAGE m ON m.ID = s.MAIL_ID
    WHERE s.STATUS IN $final AND s.FINISHED_AT < '$job_days' AND m.CREATED_AT < '$job_days'")
left_full=$(sql "SELECT COUNT(*) FROM mailqueue.MAIL_STATE s JOIN mailqueue.MAIL_MESSAGE m ON m.ID = s.MAIL_ID
    WHERE s.STATUS IN $final AND m.CONTENT_REMOVED_AT IS NULL AND s.FINISHED_AT < '$job_content'")
emptied=$(sql "SELECT COUNT(*) FROM mailqueue.MAIL_MESSAGE WHERE CONTENT_REMOVED_AT IS NOT NULL
    AND TEXT_BODY IS NULL AND HTML_BODY IS NULL")
mails_after=$(sql "SELECT COUNT(*) FROM mailqueue.MAIL_MESSAGE")
dispatched=$(sql "SELECT COUNT(*) FROM mailqueue.MAIL_MESSAGE WHERE SUBJECT LIKE 'alone %' OR SUBJECT LIKE 'beside %'")

{
    echo "=== mailqueue retention benchmark ==="
    echo "commit              $(git -C "$repo" rev-parse --short HEAD)$(git -C "$repo" diff --quiet || echo ' (uncommitted changes)')"
    echo "database            $RUN_DB"
    echo "history             $FINISHED finished mails over 90 days ($(( FINISHED / 90 )) a day); retention $DAYS days, content $CONTENT_DAYS"
    echo "machine             $(nproc) x $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
    echo "job                 execution $execution $status, exit status $exit_status, ${wall%.*} s from start to end (polled each second)"
    echo "checked with SQL    mails $mails_before -> $mails_after with $dispatched enqueued meanwhile:" \
        "$(( mails_before + dispatched - mails_after )) deleted (counted before: $to_delete);"
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
    if (( DISPATCH > 0 )); then
        echo "dispatch            $DISPATCH mails a second for $SECONDS_A_ROUND s, alone and then beside the job (started with it):"
        sed 's/^/                    /' "$out/dispatch.txt"
    fi
} | tee "$out/summary.txt"
