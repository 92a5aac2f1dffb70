#!/usr/bin/env bash
# Throughput benchmark of mailqueue on PostgreSQL, against smtp-sink. See src/benchmark/README.md.
#
#   bash src/benchmark/run.sh [mails]          (default 20000)
#
# Starts smtp-sink on 127.0.0.1:2525 and the run server (mvn -P run,postgresql, http 9080) with its
# mail session pointed at the sink, empties the queue tables in schema mailqueue, runs the client (one
# warm-up, then ROUNDS rounds in a row of: bulk enqueue, dispatch, idle latency, raw Jakarta Mail
# baseline, and with wrk single-mail POST /api/mails next to an unauthenticated GET /health/live),
# stops everything, then prints EXPLAIN ANALYZE of the claim on a 1,000,000-row scratch schema and the
# summary: the rounds side by side, with the machine's, Liberty's and PostgreSQL's CPU, PostgreSQL's WAL
# bytes, tuple writes and statements per mail (per request), and the targets. Output:
# src/benchmark/target/run-<time>/.
#
# Knobs (environment, defaults in brackets): ROUNDS [2; rounds of the measurement on the one server
# start], CLAIMERS [4], BATCH_SIZE [100], INTERVAL_MS [5000, the product's default], WARMUP [20000],
# HTTP_CONNECTIONS [4], WRK_CONNECTIONS [16], WRK_SECONDS [10; 0 skips the single-request phase],
# LATENCY_MAILS [200], CHECKPOINT [1; 0 runs no CHECKPOINT before the phases], EXPLAIN [1; 0 skips it],
# JFR [0; 1 records Java Flight Recorder profiles of Liberty and of the client while the client runs],
# QUIET_WAIT_S [600; how long to wait for running test JVMs to finish before measuring anyway], DKIM [0; 1 signs
# every mail with DKIM: a 2,048-bit RSA key made for the run, for the sender's domain mailqueue.test], TEMPLATES [0; 1
# measures, after the client, render-at-enqueue: ROUNDS pairs of a composed and a templated bulk enqueue of the
# same mails, due the next day and then deleted (TemplateCost)]. It can
# run again at once: every run empties the queue's tables first.
set -euo pipefail

MAILS=${1:-20000}
CLAIMERS=${CLAIMERS:-4}
BATCH_SIZE=${BATCH_SIZE:-100}
INTERVAL_MS=${INTERVAL_MS:-5000}
WARMUP=${WARMUP:-20000}
HTTP_CONNECTIONS=${HTTP_CONNECTIONS:-4}
WRK_CONNECTIONS=${WRK_CONNECTIONS:-16}
WRK_SECONDS=${WRK_SECONDS:-10}
LATENCY_MAILS=${LATENCY_MAILS:-200}
ROUNDS=${ROUNDS:-2}
CHECKPOINT=${CHECKPOINT:-1}
EXPLAIN=${EXPLAIN:-1}
JFR=${JFR:-0}
QUIET_WAIT_S=${QUIET_WAIT_S:-600}
DKIM=${DKIM:-0}
TEMPLATES=${TEMPLATES:-0}
SINK_PORT=2525
HTTP_PORT=9080
START_TIMEOUT_S=300
STOP_TIMEOUT_S=90
EXPLAIN_SCHEMA=mailqueue_bench_explain      # scratch; created and dropped by explain-claim.sql

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
out=$here/target/run-$(date +%Y%m%d-%H%M%S)
server_dir=$repo/ear-module/target/liberty/wlp/usr/servers/mailqueue
psql_cmd=(psql -h 127.0.0.1 -U postgres -d test -X -q -v ON_ERROR_STOP=1)

say() { printf 'run.sh: %s\n' "$*"; }
die() { printf 'run.sh: ERROR: %s\n' "$*" >&2; exit 1; }
port_busy() { ss -ltnH "sport = :$1" | grep -q .; }

[[ $MAILS =~ ^[1-9][0-9]*$ ]] || die "mails must be a positive number, got '$MAILS'"
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "ROUNDS must be a positive number, got '$ROUNDS'"
[[ $WRK_SECONDS =~ ^[0-9]+$ ]] || die "WRK_SECONDS must be a number, got '$WRK_SECONDS'"
# Debian packages the run needs: wrk (single-request phase), postfix (for smtp-sink; its daemon is not started).
install_package() {
    say "installing $1 (Debian package) for $2"
    DEBIAN_FRONTEND=noninteractive apt-get install -y "$1" >/dev/null 2>&1 \
        || { apt-get update >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y "$1" >/dev/null; } \
        || die "$1 is missing and could not be installed (apt-get install $1)"
}
command -v wrk >/dev/null || install_package wrk "the single-request phase"
command -v smtp-sink >/dev/null || install_package postfix "smtp-sink"
for tool in smtp-sink psql mvn java ss curl wrk; do
    command -v "$tool" >/dev/null || die "$tool not found (smtp-sink: apt-get install postfix)"
done
"${psql_cmd[@]}" -c 'SELECT 1' >/dev/null || die "PostgreSQL on 127.0.0.1:5432 (database test, user postgres) not reachable"
# Statement counts need pg_stat_statements (see README.md); without it the summary says "statements: n/a".
pgss=$("${psql_cmd[@]}" -Atc "SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_stat_statements')
    THEN 'not created in database test' WHEN current_setting('shared_preload_libraries') !~ 'pg_stat_statements'
    THEN 'not in shared_preload_libraries' ELSE 'ok' END")
[[ $pgss == ok ]] || say "pg_stat_statements $pgss: statements will be n/a (to enable it, see src/benchmark/README.md)"
for port in $HTTP_PORT 9443 2809 3025 8085 $SINK_PORT; do
    ! port_busy "$port" || die "port $port is in use (another mailqueue run server or smtp-sink?)"
done

# Measure on a quiet machine: wait for running test JVMs (surefire/failsafe/the IT server) to finish.
under_load=""
waited=0
while pgrep -f 'surefire|failsafe|mailqueue-it' >/dev/null; do
    if (( waited >= QUIET_WAIT_S )); then
        under_load="yes"
        say "test JVMs still running after ${QUIET_WAIT_S} s; measuring UNDER LOAD:"
        pgrep -fa 'surefire|failsafe|mailqueue-it' | cut -c1-160
        break
    fi
    (( waited % 60 == 0 )) && say "waiting for test JVMs to finish (${waited}/${QUIET_WAIT_S} s)"
    sleep 10
    waited=$((waited + 10))
done

mkdir -p "$out"
say "output in $out"

say "building the client"
mvn -q -f "$here/pom.xml" package -DskipTests > "$out/client-build.log" 2>&1 \
    || { cat "$out/client-build.log"; die "client build failed"; }

sink_pid="" mvn_pid="" watcher_pid=""
cleanup() {
    set +e
    [[ -n $watcher_pid ]] && kill "$watcher_pid" 2>/dev/null
    if [[ -n $mvn_pid ]] && kill -0 "$mvn_pid" 2>/dev/null; then
        say "stopping the server (SIGTERM to Maven $mvn_pid)"
        kill -TERM "$mvn_pid"
        for ((i = 0; i < STOP_TIMEOUT_S; i++)); do kill -0 "$mvn_pid" 2>/dev/null || break; sleep 1; done
        kill -0 "$mvn_pid" 2>/dev/null && say "WARNING: Maven $mvn_pid still running after ${STOP_TIMEOUT_S} s"
    fi
    if [[ -n $sink_pid ]]; then kill "$sink_pid" 2>/dev/null; wait "$sink_pid" 2>/dev/null; fi
    local left=""
    for port in $HTTP_PORT 3025 8085 $SINK_PORT; do port_busy "$port" && left+=" $port"; done
    if [[ -n $left ]]; then
        say "WARNING: still listening after stop:$left"
        ss -ltnpH | grep -E ":($(echo $left | tr ' ' '|'))\b"
    fi
    sink_pid="" mvn_pid="" watcher_pid=""
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say "starting smtp-sink on 127.0.0.1:$SINK_PORT"
sink_user=()
(( EUID == 0 )) && sink_user=(-u postfix)   # it refuses to run as root without -u
smtp-sink -c "${sink_user[@]}" 127.0.0.1:$SINK_PORT 1000 > "$out/smtp-sink.log" 2>&1 &
sink_pid=$!

# Empty the run server's queue (schema mailqueue only) so runs start alike; the tables exist after the first start.
if [[ $("${psql_cmd[@]}" -Atc "SELECT to_regclass('mailqueue.mail_message') IS NOT NULL") == t ]]; then
    say "emptying the queue's tables in schema mailqueue"
    "${psql_cmd[@]}" -c 'TRUNCATE mailqueue.mail_message, mailqueue.mail_attempt CASCADE' # the log has no foreign key (V14)
    # The outbox (V9) has no foreign key to the mails; a schema from before V9 has no such tables.
    "${psql_cmd[@]}" -c 'TRUNCATE mailqueue.mail_event, mailqueue.webhook_delivery' 2>/dev/null || true
fi

dkim_vars=()
if [[ $DKIM == 1 ]]; then
    openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$out/dkim.pem" 2>/dev/null \
        || die "openssl could not make the DKIM key"
    dkim_vars=(-Dliberty.var.mailqueue.dkim.keys=bench -Dliberty.var.mailqueue.dkim.bench.domain=mailqueue.test
        -Dliberty.var.mailqueue.dkim.bench.selector=bench -Dliberty.var.mailqueue.dkim.bench.key-file="$out/dkim.pem")
    say "signing every mail with DKIM (d=mailqueue.test, $out/dkim.pem)"
fi

say "starting the server: mvn -P run,postgresql (log: $out/server.log)"
(
    cd "$repo"
    exec mvn -P run,postgresql -DskipTests package \
        -Dliberty.var.mailqueue.smtp.host=127.0.0.1 \
        -Dliberty.var.mailqueue.smtp.port=$SINK_PORT \
        -Dliberty.var.mailqueue.dispatch.claimers="$CLAIMERS" \
        -Dliberty.var.mailqueue.dispatch.batch-size="$BATCH_SIZE" \
        -Dliberty.var.mailqueue.dispatch.interval.ms="$INTERVAL_MS" \
        -Dliberty.var.mailqueue.security.allowed-from.sender=@mailqueue.test "${dkim_vars[@]}"
) > "$out/server.log" 2>&1 &
mvn_pid=$!
for ((i = 0; ; i++)); do
    grep -qs 'CWWKF0011I' "$out/server.log" && break
    kill -0 "$mvn_pid" 2>/dev/null || { tail -40 "$out/server.log"; die "the server build or start failed"; }
    (( i < START_TIMEOUT_S )) || { tail -40 "$out/server.log"; die "no CWWKF0011I after ${START_TIMEOUT_S} s"; }
    sleep 1
done
say "server ready after ${i} s"

# liberty:run must have deployed the EAR just built, so that the figures belong to this build.
messages=$server_dir/logs/messages.log
cmp -s "$repo/ear-module/target/mailqueue.ear" "$server_dir/apps/mailqueue.ear" \
    || die "the run server's apps/mailqueue.ear is not the EAR just built"

# The -Dliberty.var.* values must have won over the run profile's own (it pins the SMTP port to GreenMail's 3025).
overrides=$server_dir/configDropins/overrides/liberty-plugin-variable-config.xml
grep -q "name=\"mailqueue.smtp.port\" value=\"$SINK_PORT\"" "$overrides" \
    || die "mailqueue.smtp.port is not $SINK_PORT in $overrides"
for ((i = 0; i < 90; i++)); do
    grep -q 'mail dispatch every' "$messages" 2>/dev/null && break
    sleep 1
done
dispatch_config=$(grep -o 'mail dispatch every.*' "$messages" | tail -1 || true)
[[ -n $dispatch_config ]] || { grep -E ' E |CWWKZ' "$messages" | tail -20; die "the application did not start"; }
# The REST API is up once an unknown mail gets the application's problem+json 404.
for ((i = 0; ; i++)); do
    [[ $(curl -s -u sender:sender -o /dev/null -w '%{content_type}' "http://localhost:$HTTP_PORT/api/mails/0") == application/problem+json* ]] && break
    (( i < 90 )) || die "the REST API did not come up"
    sleep 1
done
say "server says: $dispatch_config"
if [[ $DKIM == 1 ]]; then
    curl -s "http://localhost:$HTTP_PORT/health/ready" | grep -q 'bench._domainkey.mailqueue.test (2048 bits)' \
        || die "the server did not read the DKIM key (readiness: $(curl -s "http://localhost:$HTTP_PORT/health/ready"))"
fi
[[ $dispatch_config == "mail dispatch every $INTERVAL_MS ms and on enqueue, up to $CLAIMERS claimers of $BATCH_SIZE mails"* ]] \
    || die "the server did not take the dispatch settings"

liberty_pid=$(ss -ltnpH "sport = :$HTTP_PORT" | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2)
client_jfr=()
if [[ $JFR == 1 ]]; then
    jcmd "$liberty_pid" JFR.start name=benchmark settings=profile filename="$out/liberty.jfr" > "$out/jfr-start.log" 2>&1 \
        || die "could not start JFR in Liberty ($liberty_pid): $(cat "$out/jfr-start.log")"
    client_jfr=(-XX:StartFlightRecording=settings=profile,filename="$out/client.jfr")
    say "recording JFR of Liberty ($liberty_pid) and the client into $out/*.jfr"
fi

# Note any test JVM or other Maven build that runs while we measure.
( set +e +o pipefail
  while sleep 2; do
      { pgrep -fa 'surefire|failsafe|mailqueue-it'; pgrep -fa plexus-classworlds | grep -v "^$mvn_pid "; } \
          | cut -c1-160 | sed "s/^/$(date -u +%T) /"
  done ) > "$out/foreign-jvms.log" 2>/dev/null &
watcher_pid=$!

say "running the client"
set +e
java -Xmx1g "${client_jfr[@]}" -cp "$here/target/classes:$here/target/lib/*" dev.mailqueue.benchmark.Benchmark \
    --mails="$MAILS" --warmup-mails="$WARMUP" --http-connections="$HTTP_CONNECTIONS" \
    --claimers="$CLAIMERS" --dispatch-batch-size="$BATCH_SIZE" --dispatch-interval-ms="$INTERVAL_MS" \
    --latency-mails="$LATENCY_MAILS" --liberty-pid="${liberty_pid:-0}" --sink-pid="$sink_pid" \
    --api-url="http://localhost:$HTTP_PORT/api/mails" --smtp-host=127.0.0.1 --smtp-port=$SINK_PORT \
    --sink-log="$out/smtp-sink.log" --rounds="$ROUNDS" --checkpoint="$([[ $CHECKPOINT == 1 ]] && echo true || echo false)" \
    --wrk-connections="$WRK_CONNECTIONS" --wrk-seconds="$WRK_SECONDS" --out-dir="$out" \
    2>&1 | tee "$out/client.log" | sed -u '/^=== mailqueue throughput benchmark ===/,$d'
client_status=${PIPESTATUS[0]}
if [[ $TEMPLATES == 1 && $client_status == 0 ]]; then
    say "render at enqueue: composed and templated bulk enqueues of $MAILS mails, $ROUNDS rounds"
    java -Xmx1g -cp "$here/target/classes:$here/target/lib/*" dev.mailqueue.benchmark.TemplateCost \
        --mails="$MAILS" --http-connections="$HTTP_CONNECTIONS" --rounds="$ROUNDS" --liberty-pid="${liberty_pid:-0}" \
        --api-url="http://localhost:$HTTP_PORT/api/mails" 2>&1 | tee "$out/templates.txt"
    client_status=${PIPESTATUS[0]}
fi
set -e
kill "$watcher_pid" 2>/dev/null || true
watcher_pid=""
if [[ -s $out/foreign-jvms.log ]]; then
    under_load="yes"
    say "other JVMs ran during the measurement (see $out/foreign-jvms.log):"
    cut -d' ' -f2- "$out/foreign-jvms.log" | sort | uniq -c | sort -rn | head -5
fi
if [[ $JFR == 1 ]]; then
    jcmd "$liberty_pid" JFR.stop name=benchmark > "$out/jfr-stop.log" 2>&1 || say "WARNING: JFR.stop failed"
fi

cleanup
set -e
(( client_status == 0 )) || die "the client failed (exit $client_status); see $out/client.log"

if [[ $EXPLAIN == 1 ]]; then
    say "EXPLAIN ANALYZE of the claim on 1,000,000 rows in scratch schema $EXPLAIN_SCHEMA (log: $out/explain.txt)"
    # Every migration of sql/postgresql, in version order.
    ls "$repo"/sql/postgresql/V*__*.sql | sort -V | xargs cat > "$out/ddl.sql"
    "${psql_cmd[@]}" -v schema="$EXPLAIN_SCHEMA" -v ddl="$out/ddl.sql" -f "$here/explain-claim.sql" 2>&1 \
        | tee "$out/explain.txt"
    # One line per explained statement: its first scan node and its execution time.
    explained=$(awk '
        /^-- [0-9]\./ { sec = $2 }
        /forced generic plan/ { sec = sec "g" }
        /(Index Only Scan|Index Scan|Bitmap Index Scan|Seq Scan) (using|on) / && !(sec in node) {
            match($0, /(Index Only Scan|Index Scan|Bitmap Index Scan|Seq Scan) (using|on) [a-z_]+/)
            node[sec] = substr($0, RSTART, RLENGTH) }
        /Execution Time/ { ms[sec] = $3 }
        END {
            printf "claim, 1M rows      %s, %s ms (custom plan); %s ms (generic plan: %s)\n", node["1."], ms["1."], ms["1.g"], node["1.g"]
            printf "expired claimers    %s, %s ms\n", node["2."], ms["2."]
            printf "timer due count     %s, %s ms\n", node["3."], ms["3."]
        }' "$out/explain.txt")
fi

{
    echo
    echo "=== machine and versions ==="
    echo "cpu                 $(nproc) x $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), memory $(free -g | awk '/^Mem:/ {print $2}') GiB"
    echo "java                $(java -version 2>&1 | head -1)"
    echo "postgresql          $("${psql_cmd[@]}" -Atc "SELECT current_setting('server_version') || ', autovacuum ' || current_setting('autovacuum') || ', shared_buffers ' || current_setting('shared_buffers') || ', pg_stat_statements: $pgss'")"
    echo "liberty             $(grep -o 'Open Liberty [0-9.]*' "$out/server.log" | head -1)"
    echo "mailqueue           commit $(git -C "$repo" rev-parse --short HEAD)$(git -C "$repo" diff --quiet HEAD -- . ':!src/benchmark' ':!BENCHMARKS.md' ':!BENCHMARKS-history.md' || echo ' + uncommitted changes')"
    echo "measured            $(date -u '+%Y-%m-%d %H:%M UTC')${under_load:+, UNDER LOAD (other JVMs ran, see above)}"
    echo
    sed -n '/^=== mailqueue throughput benchmark ===/,$p' "$out/client.log"
    [[ -z ${explained:-} ]] || { echo; echo "$explained"; }
    [[ ! -s $out/templates.txt ]] || { echo; cat "$out/templates.txt"; }
} | tee "$out/summary.txt"
