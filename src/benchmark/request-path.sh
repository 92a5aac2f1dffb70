#!/usr/bin/env bash
# Where a single request's CPU goes: the request path of POST /api/mails next to requests that stop earlier on it.
# See src/benchmark/README.md ("request-path.sh").
#
#   bash src/benchmark/request-path.sh
#
# Starts the run server (mvn -P run,postgresql, http 9080; schema mailqueue, emptied first, as run.sh does) and
# drives it with wrk (2 threads, 16 keep-alive connections) through PASSES passes of five phases, each one warm-up of
# PHASE_SECONDS and one measured run of PHASE_SECONDS:
#   1. POST /api/mails of one 1 KB mail due the next day, as sender:sender (what run.sh's single-POST phase sends);
#   2. POST /api/mails of "{}" as sender:sender: signed in, read and refused with 400 (no database work);
#   3. GET /api/mails/0 as sender:sender: signed in, one read, 404;
#   4. GET /health/live, not signed in;
#   5. phase 1 again.
# For each measured run it prints the machine's, Liberty's and PostgreSQL's CPU a request (from /proc, clock ticks
# of 10 ms; wrk's own CPU counts in the machine's). The JIT compiler warms up over the first pass: compare
# the later passes. Knobs: PASSES [3], PHASE_SECONDS [10]. Output: src/benchmark/target/request-path-<time>/.
set -euo pipefail

PASSES=${PASSES:-3}
PHASE_SECONDS=${PHASE_SECONDS:-10}
HTTP_PORT=9080
START_TIMEOUT_S=300

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
out=$here/target/request-path-$(date +%Y%m%d-%H%M%S)
psql_cmd=(psql -h 127.0.0.1 -U postgres -d test -X -q -v ON_ERROR_STOP=1)

say() { printf 'request-path.sh: %s\n' "$*"; }
die() { printf 'request-path.sh: ERROR: %s\n' "$*" >&2; exit 1; }

[[ $PASSES =~ ^[1-9][0-9]*$ ]] || die "PASSES must be a positive number, got '$PASSES'"
[[ $PHASE_SECONDS =~ ^[1-9][0-9]*$ ]] || die "PHASE_SECONDS must be a positive number, got '$PHASE_SECONDS'"
for tool in wrk psql mvn curl ss; do
    command -v "$tool" >/dev/null || die "$tool not found (wrk: apt-get install wrk)"
done
"${psql_cmd[@]}" -c 'SELECT 1' >/dev/null || die "PostgreSQL on 127.0.0.1:5432 (database test, user postgres) not reachable"
! ss -ltnH "sport = :$HTTP_PORT" | grep -q . || die "port $HTTP_PORT is in use (another run server?)"
mkdir -p "$out"

if [[ $("${psql_cmd[@]}" -Atc "SELECT to_regclass('mailqueue.mail_message') IS NOT NULL") == t ]]; then
    "${psql_cmd[@]}" -c 'TRUNCATE mailqueue.mail_message, mailqueue.mail_attempt CASCADE'
fi

# wrk scripts: the same 1 KB mail as run.sh's single POST, an empty object, and a signed-in GET.
credentials=$(printf 'sender:sender' | base64)
tomorrow=$(date -u -d tomorrow +%Y-%m-%dT%H:%M:%SZ)
mail="{\"from\":\"bench@mailqueue.test\",\"to\":[\"single@mailqueue.test\"],\"subject\":\"path single\",\"notBefore\":\"$tomorrow\",\"text\":\"$(head -c 1000 /dev/zero | tr '\0' x)\"}"
script() { # method, body, file
    printf 'wrk.method = "%s"\nwrk.headers["Content-Type"] = "application/json"\nwrk.headers["Authorization"] = "Basic %s"\nwrk.body = %s\n' \
        "$1" "$credentials" "'$2'" > "$3"
}
script POST "$mail" "$out/post.lua"
script POST '{}' "$out/empty.lua"
script GET '' "$out/get.lua"

say "starting the server: mvn -P run,postgresql (log: $out/server.log)"
(cd "$repo" && exec mvn -P run,postgresql -DskipTests package \
    -Dliberty.var.mailqueue.security.allowed-from.sender=@mailqueue.test) > "$out/server.log" 2>&1 &
mvn_pid=$!
trap 'kill -TERM $mvn_pid 2>/dev/null; wait $mvn_pid 2>/dev/null || true' EXIT
for ((i = 0; ; i++)); do
    [[ $(curl -s -u sender:sender -o /dev/null -w '%{content_type}' "http://localhost:$HTTP_PORT/api/mails/0") == application/problem+json* ]] && break
    kill -0 "$mvn_pid" 2>/dev/null || { tail -40 "$out/server.log"; die "the server build or start failed"; }
    (( i < START_TIMEOUT_S )) || die "the REST API did not come up in ${START_TIMEOUT_S} s"
    sleep 1
done
liberty_pid=$(ss -ltnpH "sport = :$HTTP_PORT" | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2)

# CPU clock ticks so far: of one process (utime + stime), of every postgres process, of the machine (/proc/stat).
process_ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }
postgres_ticks() {
    local total=0 pid
    for pid in $(pgrep -x postgres); do total=$((total + $(process_ticks "$pid"))); done
    echo "$total"
}
machine_ticks() { awk '/^cpu /{print $2 + $3 + $4 + $7 + $8}' /proc/stat; }

phase() { # name, label, url, wrk script or empty
    local name=$1 label=$2 url=$3 lua=()
    [[ -n $4 ]] && lua=(-s "$4")
    wrk -t2 -c16 -d"${PHASE_SECONDS}s" "${lua[@]}" "$url" > "$out/$name-warm-up.txt"
    local l0 p0 m0 l1 p1 m1 requests refused
    l0=$(process_ticks "$liberty_pid") p0=$(postgres_ticks) m0=$(machine_ticks)
    wrk -t2 -c16 -d"${PHASE_SECONDS}s" "${lua[@]}" "$url" > "$out/$name.txt"
    l1=$(process_ticks "$liberty_pid") p1=$(postgres_ticks) m1=$(machine_ticks)
    requests=$(grep -o '[0-9]* requests in' "$out/$name.txt" | cut -d' ' -f1)
    refused=$(grep -o 'Non-2xx or 3xx responses: [0-9]*' "$out/$name.txt" | grep -o '[0-9]*$' || echo 0)
    awk -v n="$requests" -v bad="$refused" -v l=$((l1 - l0)) -v p=$((p1 - p0)) -v m=$((m1 - m0)) -v label="$label" \
        'BEGIN { printf "  %-36s %8d requests, %6d not 2xx; CPU a request: machine %.3f ms, Liberty %.3f ms, PostgreSQL %.3f ms\n",
                 label, n, bad, m * 10 / n, l * 10 / n, p * 10 / n }'
}

for ((pass = 1; pass <= PASSES; pass++)); do
    echo "pass $pass of $PASSES (wrk -c 16, ${PHASE_SECONDS} s warm-up and ${PHASE_SECONDS} s measured a phase)"
    phase "post-$pass" "POST /api/mails, a 1 KB mail (202)" "http://localhost:$HTTP_PORT/api/mails" "$out/post.lua"
    phase "empty-$pass" "POST /api/mails, {} (400)" "http://localhost:$HTTP_PORT/api/mails" "$out/empty.lua"
    phase "get-$pass" "GET /api/mails/0, signed in (404)" "http://localhost:$HTTP_PORT/api/mails/0" "$out/get.lua"
    phase "live-$pass" "GET /health/live, not signed in" "http://localhost:$HTTP_PORT/health/live" ""
    phase "again-$pass" "POST /api/mails, a 1 KB mail, again" "http://localhost:$HTTP_PORT/api/mails" "$out/post.lua"
done | tee "$out/summary.txt"
