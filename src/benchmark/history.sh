#!/usr/bin/env bash
# History benchmark (issue 51): what a long history costs the queue. See src/benchmark/README.md.
#
#   bash src/benchmark/history.sh [finished mails]     (default 10000000)
#
# Starts smtp-sink on 127.0.0.1:2525 and the run server (mvn -P run,postgresql, http 9080, https 9443) pointed at it,
# empties the queue's tables in schema mailqueue, and runs the client HistoryBenchmark twice: on the empty database,
# then after history-fill.sql has written FINISHED finished mails of the past 90 days and QUEUED scheduled ones
# (plain SQL, while the server runs; then VACUUM ANALYZE). Each run: reads (statistics, console pages, one mail, a
# search by recipient, metrics scrapes) and a bulk enqueue and dispatch of MAILS mails with their CPU a mail. Prints
# both side by side with the ratios and the issue's targets, and the database's size a million mails.
# Output: src/benchmark/target/history-<time>/. The filled rows stay until the next run of this script or of run.sh
# (both empty the tables first); KEEP=0 empties them at the end.
#
# Knobs (environment, defaults in brackets): QUEUED [1000000], MAILS [20000], WARMUP [20000], READS [200],
# SLOW_READS [5; the search by recipient, which reads every mail], CHUNK [500000 mails a fill transaction], KEEP [1].
set -euo pipefail

FINISHED=${1:-10000000}
QUEUED=${QUEUED:-1000000}
MAILS=${MAILS:-20000}
WARMUP=${WARMUP:-20000}
READS=${READS:-200}
SLOW_READS=${SLOW_READS:-5}
CHUNK=${CHUNK:-500000}
KEEP=${KEEP:-1}
SINK_PORT=2525
HTTP_PORT=9080
HTTPS_PORT=9443

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
out=$here/target/history-$(date +%Y%m%d-%H%M%S)
psql_cmd=(psql -h 127.0.0.1 -U postgres -d test -X -q -v ON_ERROR_STOP=1)

say() { printf 'history.sh: %s\n' "$*"; }
die() { printf 'history.sh: ERROR: %s\n' "$*" >&2; exit 1; }
source "$here/run-server.sh"

[[ $FINISHED =~ ^[0-9]+$ && $QUEUED =~ ^[0-9]+$ && $MAILS =~ ^[1-9][0-9]*$ ]] || die "mail counts must be numbers"
command -v smtp-sink >/dev/null || die "smtp-sink not found (apt-get install postfix)"
for tool in psql mvn java ss curl; do command -v "$tool" >/dev/null || die "$tool not found"; done
"${psql_cmd[@]}" -c 'SELECT 1' >/dev/null || die "PostgreSQL on 127.0.0.1:5432 (database test, user postgres) not reachable"
for port in $HTTP_PORT $HTTPS_PORT 3025 $SINK_PORT; do ! port_busy "$port" || die "port $port is in use"; done
mkdir -p "$out"
say "output in $out"
mvn -q -f "$here/pom.xml" package -DskipTests > "$out/client-build.log" 2>&1 || { cat "$out/client-build.log"; die "client build failed"; }

sink_pid=""
cleanup() {
    set +e
    stop_run_server
    [[ -n $sink_pid ]] && kill "$sink_pid" 2>/dev/null
    [[ $KEEP == 0 ]] && { say "emptying the tables (KEEP=0)"; empty_queue_tables; }
    sink_pid=""
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say "emptying the queue's tables in schema mailqueue"
empty_queue_tables
sink_user=()
(( EUID == 0 )) && sink_user=(-u postfix)
smtp-sink -c "${sink_user[@]}" 127.0.0.1:$SINK_PORT 1000 > "$out/smtp-sink.log" 2>&1 &
sink_pid=$!
say "starting the server: mvn -P run,postgresql (log: $out/server.log)"
start_run_server "$out/server.log" -Dliberty.var.mailqueue.smtp.host=127.0.0.1 \
    -Dliberty.var.mailqueue.smtp.port=$SINK_PORT -Dliberty.var.mailqueue.security.allowed-from.sender=@mailqueue.test
liberty_pid=$(ss -ltnpH "sport = :$HTTP_PORT" | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2)
say "Liberty pid $liberty_pid"

results=$out/results.properties
client() {
    java -Xmx512m -cp "$here/target/classes:$here/target/lib/*" dev.mailqueue.benchmark.HistoryBenchmark \
        --phase="$1" --base-url="http://localhost:$HTTP_PORT" --https-base-url="https://localhost:$HTTPS_PORT" \
        --jdbc-url="jdbc:postgresql://127.0.0.1:5432/test?currentSchema=mailqueue" --db-user=postgres \
        --reads="$READS" --slow-reads="$SLOW_READS" --mails="$MAILS" --warmup-mails="$WARMUP" \
        --liberty-pid="$liberty_pid" --sink-pid="$sink_pid" --sink-log="$out/smtp-sink.log" --results="$results" \
        2>&1 | tee -a "$out/client.log"
    [[ ${PIPESTATUS[0]} == 0 ]] || die "the client failed in phase $1"
}

say "phase 1: the database as it is, empty"
client empty

say "filling: $FINISHED finished mails and $QUEUED queued, in transactions of $CHUNK (history-fill.sql)"
fill_start=$(date +%s)
"${psql_cmd[@]}" -v finished="$FINISHED" -v queued="$QUEUED" -v chunk="$CHUNK" -f "$here/history-fill.sql" 2>&1 \
    | tee "$out/fill.log"
"${psql_cmd[@]}" -c 'VACUUM ANALYZE mailqueue.mail_message, mailqueue.mail_attempt, mailqueue.mail_recipient, mailqueue.mail_queue'
# The filled log rows are late for the hours the empty phase's reads counted (MAIL_LOG_HOUR, V18): count them again.
"${psql_cmd[@]}" -c 'TRUNCATE mailqueue.mail_log_hour' \
    -c "UPDATE mailqueue.mail_log_hour_mark SET counted_until = '1970-01-01 00:00:00'"
fill_s=$(( $(date +%s) - fill_start ))
say "filled and analysed in ${fill_s} s"
"${psql_cmd[@]}" -Atc "SELECT relname || '=' || pg_total_relation_size(c.oid) FROM pg_class c JOIN pg_namespace n
    ON n.oid = c.relnamespace WHERE n.nspname = 'mailqueue' AND c.relkind = 'r' ORDER BY 1" > "$out/sizes.txt"
"${psql_cmd[@]}" -Atc "SELECT 'mails=' || count(*) FROM mailqueue.mail_message" >> "$out/sizes.txt"

say "phase 2: with the history"
client full

# The summary: each figure on the empty database and with the history, their ratio, and the issue's target.
{
    echo "=== mailqueue history benchmark ==="
    echo "commit              $(git -C "$repo" rev-parse --short HEAD)$(git -C "$repo" diff --quiet || echo ' (uncommitted changes)')"
    echo "history             $FINISHED finished mails over 90 days, $QUEUED queued (due in 1-30 days); filled in ${fill_s} s"
    echo "machine             $(nproc) x $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
    awk -F= -v mails="$FINISHED" '
        /^mails=/ { total = $2; next }
        { bytes += $2; size[$1] = $2 }
        END {
            printf "database size       %.0f MB in all; per million mails %.0f MB", bytes / 1e6, total ? bytes / total : 0
            for (t in size) if (size[t] > 1e8) printf "; %s %.0f MB", t, size[t] / 1e6
            printf "\n"
        }' "$out/sizes.txt"
    printf '%-26s %12s %12s %8s  %s\n' figure empty full ratio target
    awk -F'[.=]' '
        { value[$1 "." $2] = $3 "." $4; if (!seen[$2]++) order[n++] = $2 }
        END {
            target["dispatch_machine_ms"] = "full <= 1.2 x empty"; target["dispatch_postgres_ms"] = "full <= 1.2 x empty"
            target["enqueue_machine_ms"] = "full <= 1.2 x empty"
            target["statistics_p99_ms"] = "<= 50 ms"; target["metrics_scrape_max_ms"] = "<= 50 ms (depth gauge)"
            target["mail_by_id_p99_ms"] = "<= 50 ms"; target["search_first_page_p99_ms"] = "<= 50 ms"
            target["search_failed_p99_ms"] = "<= 50 ms"; target["search_recipient_p99_ms"] = "<= 50 ms"
            for (i = 0; i < n; i++) {
                k = order[i]; e = value["empty." k]; f = value["full." k]
                printf "%-26s %12.3f %12.3f %8s  %s\n", k, e, f, (e > 0 ? sprintf("%.2f", f / e) : "-"), target[k]
            }
        }' "$results"
} | tee "$out/summary.txt"
