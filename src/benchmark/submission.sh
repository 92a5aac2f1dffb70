#!/usr/bin/env bash
# Load test of SMTP submission into the queue next to POST /api/mails (issue 30). See src/benchmark/README.md.
#
#   bash src/benchmark/submission.sh [messages]          (default 4000 per phase)
#
# Starts the run server (mvn -P run,postgresql, http 9080) with the SMTP submission listener on 127.0.0.1:2587
# (AUTH without TLS allowed from loopback, as the HTTP side is plain too), pauses dispatch so that only intake is
# measured, runs dev.mailqueue.benchmark.SubmissionLoad (two rounds of: the messages over CONNECTIONS SMTP
# connections, then the same over as many HTTP connections), prints messages per second and CPU per message of
# the machine, Liberty and PostgreSQL with the SMTP : REST ratios, stops the server and empties the queue's tables.
# Knobs: CONNECTIONS [8]. Output: src/benchmark/target/submission-<time>/.
set -euo pipefail

MESSAGES=${1:-4000}
CONNECTIONS=${CONNECTIONS:-8}
SMTP_PORT=2587
HTTP_PORT=9080
START_TIMEOUT_S=300

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
out=$here/target/submission-$(date +%Y%m%d-%H%M%S)
psql_cmd=(psql -h 127.0.0.1 -U postgres -d test -X -q -v ON_ERROR_STOP=1)

say() { printf 'submission.sh: %s\n' "$*"; }
die() { printf 'submission.sh: ERROR: %s\n' "$*" >&2; exit 1; }

[[ $MESSAGES =~ ^[1-9][0-9]*$ ]] || die "messages must be a positive number, got '$MESSAGES'"
for port in $SMTP_PORT $HTTP_PORT; do
    ! ss -ltnH "sport = :$port" | grep -q . || die "port $port is in use"
done
mkdir -p "$out"
say "building the client (log: $out/client-build.log)"
mvn -q -f "$here/pom.xml" package -DskipTests > "$out/client-build.log" 2>&1 || die "client build failed"

empty() {
    if [[ $("${psql_cmd[@]}" -Atc "SELECT to_regclass('mailqueue.mail_message') IS NOT NULL") == t ]]; then
        "${psql_cmd[@]}" -c 'TRUNCATE mailqueue.mail_message, mailqueue.mail_attempt CASCADE'
    fi
}
mvn_pid=""
cleanup() {
    if [[ -n $mvn_pid ]] && kill -0 "$mvn_pid" 2>/dev/null; then
        say "stopping the server"
        kill -TERM "$mvn_pid"
        for ((i = 0; i < 90; i++)); do kill -0 "$mvn_pid" 2>/dev/null || break; sleep 1; done
    fi
    mvn_pid=""
    empty || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

empty
say "starting the server: mvn -P run,postgresql with SMTP submission on $SMTP_PORT (log: $out/server.log)"
(
    cd "$repo"
    exec mvn -P run,postgresql -DskipTests package \
        -Dliberty.var.mailqueue.submission.enabled=true \
        -Dliberty.var.mailqueue.submission.port=$SMTP_PORT \
        -Dliberty.var.mailqueue.submission.api-url=http://localhost:$HTTP_PORT \
        -Dliberty.var.mailqueue.submission.auth-on-loopback-without-tls=true \
        -Dliberty.var.mailqueue.submission.max-messages-per-connection=100000 \
        -Dliberty.var.mailqueue.submission.max-connections-per-address=100 \
        -Dliberty.var.mailqueue.security.allowed-from.sender=@mailqueue.test
) > "$out/server.log" 2>&1 &
mvn_pid=$!
for ((i = 0; ; i++)); do
    grep -qs 'CWWKF0011I' "$out/server.log" && break
    kill -0 "$mvn_pid" 2>/dev/null || { tail -40 "$out/server.log"; die "the server build or start failed"; }
    (( i < START_TIMEOUT_S )) || die "no CWWKF0011I after ${START_TIMEOUT_S} s"
    sleep 1
done
grep -q "SMTP submission: listening" "$repo/ear-module/target/liberty/wlp/usr/servers/mailqueue/logs/messages.log" \
    || die "the SMTP submission listener did not start"
curl -sf -u admin:admin -X POST "http://localhost:$HTTP_PORT/api/admin/dispatch/pause" > /dev/null \
    || die "could not pause dispatch"
liberty_pid=$(ss -ltnpH "sport = :$HTTP_PORT" | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2)
say "server ready (Liberty pid $liberty_pid), dispatch paused"
java -Xmx512m -cp "$here/target/classes:$here/target/lib/*" dev.mailqueue.benchmark.SubmissionLoad \
    "$MESSAGES" "$CONNECTIONS" "$SMTP_PORT" "http://localhost:$HTTP_PORT" "${liberty_pid:-0}" sender sender \
    | tee "$out/summary.txt"
