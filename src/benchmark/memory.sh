#!/usr/bin/env bash
# Memory benchmark (issue 16): the run server with a 512 MB heap takes the largest legal requests from
# several senders at once, for a while, and still delivers ordinary mail queued meanwhile. Prints what it
# saw; asserts nothing. See src/benchmark/README.md.
#
#   bash src/benchmark/memory.sh
#
# Knobs (environment, defaults in brackets): HEAP [512m], SENDERS [8], DURATION_S [120], DB [derby, the
# run profile's default, embedded in Liberty's heap; or postgresql], DRAIN_SECONDS [600].
# Starts smtp-sink on 127.0.0.1:2525 and the run server (mvn -P run, http 9080) with JVM_ARGS=-Xmx$HEAP and
# its mail session on the sink; samples the server's heap with jstat every second. Output:
# src/benchmark/target/memory-<time>/.
set -euo pipefail

HEAP=${HEAP:-512m}
SENDERS=${SENDERS:-8}
DURATION_S=${DURATION_S:-120}
DB=${DB:-derby}
DRAIN_SECONDS=${DRAIN_SECONDS:-600}
SINK_PORT=2525
HTTP_PORT=9080
START_TIMEOUT_S=300

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
out=$here/target/memory-$(date +%Y%m%d-%H%M%S)
server_dir=$repo/ear-module/target/liberty/wlp/usr/servers/mailqueue

say() { printf 'memory.sh: %s\n' "$*"; }
die() { printf 'memory.sh: ERROR: %s\n' "$*" >&2; exit 1; }
port_busy() { ss -ltnH "sport = :$1" | grep -q .; }

[[ $DB == derby || $DB == postgresql ]] || die "DB must be derby or postgresql, got '$DB'"
command -v smtp-sink >/dev/null || {
    say "installing postfix (Debian package) for smtp-sink"
    { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y postfix; } >/dev/null \
        || die "smtp-sink is missing (apt-get install postfix)"
}
for tool in smtp-sink mvn java jstat ss curl; do command -v "$tool" >/dev/null || die "$tool not found"; done
for port in $HTTP_PORT 9443 2809 3025 8085 $SINK_PORT; do
    ! port_busy "$port" || die "port $port is in use (another mailqueue run server or smtp-sink?)"
done
mkdir -p "$out"
say "output in $out"
mvn -q -f "$here/pom.xml" package -DskipTests > "$out/client-build.log" 2>&1 \
    || { cat "$out/client-build.log"; die "client build failed"; }

sink_pid="" mvn_pid="" jstat_pid=""
cleanup() {
    set +e
    [[ -n $jstat_pid ]] && kill "$jstat_pid" 2>/dev/null
    if [[ -n $mvn_pid ]] && kill -0 "$mvn_pid" 2>/dev/null; then
        say "stopping the server (SIGTERM to Maven $mvn_pid)"
        kill -TERM "$mvn_pid"
        for ((i = 0; i < 90; i++)); do kill -0 "$mvn_pid" 2>/dev/null || break; sleep 1; done
    fi
    [[ -n $sink_pid ]] && { kill "$sink_pid" 2>/dev/null; wait "$sink_pid" 2>/dev/null; }
    sink_pid="" mvn_pid="" jstat_pid=""
}
trap cleanup EXIT
trap 'exit 130' INT TERM

sink_user=()
(( EUID == 0 )) && sink_user=(-u postfix)
# Without -c: large mails, counted only by the queue's own SENT status.
smtp-sink "${sink_user[@]}" 127.0.0.1:$SINK_PORT 1000 > "$out/smtp-sink.log" 2>&1 &
sink_pid=$!

profiles=run
if [[ $DB == postgresql ]]; then
    profiles=run,postgresql
    psql -h 127.0.0.1 -U postgres -d test -X -q -c 'DROP SCHEMA IF EXISTS mailqueue CASCADE' || die "PostgreSQL not reachable"
else
    rm -rf "$server_dir/derby"   # an empty embedded database, like a first start
fi
say "starting the server: JVM_ARGS=-Xmx$HEAP mvn -P $profiles (log: $out/server.log)"
(
    cd "$repo"
    export JVM_ARGS="-Xmx$HEAP"
    exec mvn -P "$profiles" -DskipTests package \
        -Dliberty.var.mailqueue.smtp.host=127.0.0.1 \
        -Dliberty.var.mailqueue.smtp.port=$SINK_PORT \
        -Dliberty.var.mailqueue.security.allowed-from.sender=@mailqueue.test
) > "$out/server.log" 2>&1 &
mvn_pid=$!
for ((i = 0; ; i++)); do
    grep -qs 'CWWKF0011I' "$out/server.log" && break
    kill -0 "$mvn_pid" 2>/dev/null || { tail -40 "$out/server.log"; die "the server build or start failed"; }
    (( i < START_TIMEOUT_S )) || die "no CWWKF0011I after ${START_TIMEOUT_S} s"
    sleep 1
done
for ((i = 0; ; i++)); do
    [[ $(curl -s -u sender:sender -o /dev/null -w '%{content_type}' "http://localhost:$HTTP_PORT/api/mails/0") == application/problem+json* ]] && break
    (( i < 90 )) || die "the REST API did not come up"
    sleep 1
done
liberty_pid=$(ss -ltnpH "sport = :$HTTP_PORT" | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2)
max_heap=$(jcmd "$liberty_pid" VM.flags 2>/dev/null | grep -o -- '-XX:MaxHeapSize=[0-9]*' | cut -d= -f2)
[[ -n $max_heap ]] || die "cannot read the server's heap size (pid $liberty_pid)"
say "server $liberty_pid runs with MaxHeapSize=$max_heap bytes"
jstat -gc "$liberty_pid" 1000 > "$out/jstat.log" 2>&1 &
jstat_pid=$!

set +e
java -Xmx2g -cp "$here/target/classes:$here/target/lib/*" dev.mailqueue.benchmark.MemoryLoad \
    --api-url="http://localhost:$HTTP_PORT/api/mails" --senders="$SENDERS" --seconds="$DURATION_S" \
    --drain-seconds="$DRAIN_SECONDS" 2>&1 | tee "$out/client.log"
client_status=${PIPESTATUS[0]}
set -e
kill "$jstat_pid" 2>/dev/null || true
jstat_pid=""
messages=$server_dir/logs/messages.log
cp "$messages" "$out/messages.log" 2>/dev/null || true
oom=$( (grep -c 'OutOfMemoryError' "$out/messages.log" "$out/server.log" 2>/dev/null || true) | awk -F: '{s += $2} END {print s + 0}')
dumps=$(ls "$server_dir" | grep -cE '^(heapdump|javacore|java_pid).*' || true)
# jstat -gc: S0U S1U EU OU are columns 3, 4, 6, 8 (KB); the old generation after each sample shows what stays.
heap=$(awk 'NR > 1 && $1 ~ /^[0-9.]+$/ {
        used = $3 + $4 + $6 + $8; if (used > max) max = used; if ($8 > oldmax) oldmax = $8; fgc = $15 }
    END { printf "peak used %.0f MB, peak old generation %.0f MB, %d full GCs", max / 1024, oldmax / 1024, fgc }' "$out/jstat.log")
cleanup
{
    echo
    echo "=== memory benchmark ==="
    echo "server              -Xmx$HEAP (MaxHeapSize $max_heap bytes), $DB, commit $(git -C "$repo" rev-parse --short HEAD)$(git -C "$repo" diff --quiet HEAD -- . ':!src/benchmark' ':!BENCHMARKS.md' ':!BENCHMARKS-history.md' || echo ' + uncommitted changes'), $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "load                $SENDERS senders of the largest legal POST /api/mails for $DURATION_S s, one ordinary mail a second"
    sed -n '/^=== memory load ===/,$p' "$out/client.log" | tail -n +2
    echo "heap                $heap"
    echo "out of memory       $oom OutOfMemoryError lines in the server's logs, $dumps heap dumps or javacores"
    if (( client_status == 0 && oom == 0 && dumps == 0 )); then
        echo "target              no OutOfMemoryError and the ordinary mail delivered: met"
    else
        echo "target              no OutOfMemoryError and the ordinary mail delivered: MISSED"
    fi
} | tee "$out/summary.txt"
