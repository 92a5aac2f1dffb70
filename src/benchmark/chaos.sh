#!/usr/bin/env bash
# The chaos soak (issue 50; not in CI): two Liberty run servers on one PostgreSQL primary with a synchronous
# standby, a real Postfix as their relay, MAILS mails enqueued evenly over MINUTES minutes, and faults at seeded
# random moments while it runs:
#   kill9     kill -9 of one server's JVM, started again 5 to 15 s later
#   pgrestart PostgreSQL's primary restarted (fast shutdown: every connection cut)
#   failover  the primary stopped at once (-m immediate), the standby promoted, the old primary rebuilt from a
#             base backup of the new one and made its synchronous standby
#   relay     Postfix stopped for 20 to 60 s (`postfix stop`: its smtpd processes die mid-session)
#   netem     latency (20 to 80 ms, +-10 ms) and loss (1 to 5 %) on every connection to PostgreSQL and Postfix
#             for 30 to 90 s, through chaos/chaos.py's forwarder: this kernel has no sch_netem for `tc netem`
# Every kind strikes at least once (a shuffled bag of the five, refilled when empty). After the last mail is
# enqueued and the last fault is over, it waits for the queue to empty and for Postfix to deliver what it holds,
# then counts each Message-ID's arrivals in Postfix's log against the queue's database and prints: lost, stuck,
# duplicates (each checked for an IN_DOUBT attempt), the time from the last fault to an empty queue, each fault.
#
#   bash src/benchmark/chaos.sh                 # SEED=random MAILS=45000 MINUTES=30
#   SEED=12345 bash src/benchmark/chaos.sh      # the same faults at the same moments again
#
# Needs root (PostgreSQL clusters, Postfix), PostgreSQL 15's server package with the Debian cluster tools, python3;
# installs Postfix when missing. Ports: 5441/5442 (PostgreSQL), 5451/5452 and 2601 (the forwarder), 2526 (Postfix),
# 9181/9182, 9543/9544, 2811/2812, 9412/9413 (the servers). Postfix's own configuration in /etc/postfix is changed
# (listener on 127.0.0.1:2526, everything discarded after queueing, a log file) and left so.
set -euo pipefail

SEED=${SEED:-$(( (RANDOM << 15) | RANDOM ))}
# 25 a second: on 2 vCPUs with everything on them, the servers, both PostgreSQL nodes, Postfix and the forwarder
# took about 40 mails a second in and out together (60 a second in left 22 a second going out), and a fault's
# backlog must be caught up while mail keeps coming. MAILS=200000 (111 a second) needs a machine about 4x this.
MAILS=${MAILS:-45000}
MINUTES=${MINUTES:-30}
GAP_MIN_S=${GAP_MIN_S:-60}      # quiet time between two faults
GAP_MAX_S=${GAP_MAX_S:-150}
DRAIN_TIMEOUT_S=${DRAIN_TIMEOUT_S:-1200}
BACKOFF_MIN_MS=${BACKOFF_MIN_MS:-10000}
BACKOFF_MAX_MS=${BACKOFF_MAX_MS:-60000}
KEEP=${KEEP:-0}                 # 1: leave the clusters, servers and Postfix as they are at the end

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
stamp=$(date -u +%Y%m%dT%H%M%SZ)
out=$repo/target/chaos/$stamp
mkdir -p "$out"
wlp=$repo/ear-module/target/liberty/wlp
pgv=15
nodes=(chaosp1 chaosp2)
node_port=(5441 5442)
proxy_port=(5451 5452)
primary=0                       # index into nodes: which one takes writes now
SMTP_PROXY=2601 POSTFIX_PORT=2526
servers=(chaos-a chaos-b)
http_port=(9181 9182)
control=$out/impairment
RANDOM=$SEED

say() { printf '%s chaos: %s\n' "$(date -u +%H:%M:%S)" "$*" | tee -a "$out/events.log" >&2; }
die() { say "FAILED: $*"; exit 1; }
psql_on() { local port=$1; shift; psql -X -q -h 127.0.0.1 -p "$port" -U postgres "$@"; }
sql() { psql_on "${node_port[$primary]}" -d test -Atc "$1"; }

[[ $(id -u) == 0 ]] || die "needs root (PostgreSQL clusters and Postfix)"
for tool in pg_createcluster pg_ctlcluster pg_basebackup psql python3 mvn curl ss; do
    command -v "$tool" > /dev/null || die "$tool is missing"
done
if ! command -v postfix > /dev/null; then
    say "installing Postfix"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postfix > "$out/apt.log" 2>&1 || die "apt-get install postfix failed"
fi
say "seed $SEED, $MAILS mails over $MINUTES min, faults every ${GAP_MIN_S}-${GAP_MAX_S} s; output in $out"

# ------------------------------------------------------------------------------------------------ clean-up
proxy_pid="" load_pid=""
declare -A server_pid=()
cleanup() {
    set +e
    [[ -n $load_pid ]] && kill "$load_pid" 2>/dev/null
    if [[ $KEEP != 1 ]]; then
        for s in "${servers[@]}"; do stop_server "$s"; done
        [[ -n $proxy_pid ]] && kill "$proxy_pid" 2>/dev/null
        postfix stop > /dev/null 2>&1
        for n in "${nodes[@]}"; do pg_dropcluster "$pgv" "$n" --stop > /dev/null 2>&1; done
    fi
}
trap cleanup EXIT

jvm_pid() { pgrep -f "java.*ws-server.jar.* $1\$" | head -1 || true; }
stop_server() {
    local pid; pid=$(jvm_pid "$1")
    [[ -n $pid ]] && kill -9 "$pid" 2>/dev/null
    return 0
}

# ------------------------------------------------------------------------------------------------ the build
if [[ ! -f $wlp/usr/servers/mailqueue/server.xml || ${BUILD:-1} == 1 ]]; then
    say "building the EAR and the run server (mvn -P run,postgresql; log $out/build.log)"
    { mvn -q -f "$repo/pom.xml" install -DskipTests -Dmaven.test.skip.exec=true \
        && mvn -f "$repo/pom.xml" -P run,postgresql -pl ear-module -DskipTests -Drun.liberty.phase=none \
            -Drun.liberty.echo.phase=none package liberty:create liberty:install-feature liberty:deploy; } \
        > "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; die "the build failed"; }
fi
git -C "$repo" log -1 --format='commit %h %s' > "$out/commit.txt"

# ------------------------------------------------------------------------------------------------ PostgreSQL
for n in "${nodes[@]}"; do pg_dropcluster "$pgv" "$n" --stop > /dev/null 2>&1 || true; done
pg_createcluster "$pgv" "${nodes[0]}" -p "${node_port[0]}" -- --auth=trust > "$out/pg.log" 2>&1
pg_conftool "$pgv" "${nodes[0]}" set synchronous_standby_names "${nodes[1]}"
pg_conftool "$pgv" "${nodes[0]}" set max_connections 200
pg_ctlcluster "$pgv" "${nodes[0]}" start
base_backup() { # $1: index of the node to rebuild as a standby of the primary
    local dir=/var/lib/postgresql/$pgv/${nodes[$1]}
    rm -rf "${dir:?}"/*
    runuser -u postgres -- pg_basebackup -D "$dir" -R --checkpoint=fast -h 127.0.0.1 -p "${node_port[$primary]}" \
        -U postgres -d "application_name=${nodes[$1]}" >> "$out/pg.log" 2>&1
}
pg_createcluster "$pgv" "${nodes[1]}" -p "${node_port[1]}" -- --auth=trust >> "$out/pg.log" 2>&1
pg_conftool "$pgv" "${nodes[1]}" set max_connections 200
base_backup 1
pg_ctlcluster "$pgv" "${nodes[1]}" start
psql_on "${node_port[0]}" -d postgres -c "CREATE DATABASE test" > /dev/null
sql "CREATE SCHEMA mailqueue" > /dev/null
[[ $(sql "SELECT sync_state FROM pg_stat_replication WHERE application_name = '${nodes[1]}'") == sync ]] \
    || die "the standby does not replicate synchronously"
say "PostgreSQL primary ${nodes[0]}:${node_port[0]}, synchronous standby ${nodes[1]}:${node_port[1]}"

# ------------------------------------------------------------------------------------------------ Postfix
postfix stop > /dev/null 2>&1 || true
postconf -e "myhostname=relay.chaos.test" "mydestination=" "inet_interfaces=loopback-only" \
    "mynetworks=127.0.0.0/8" "default_transport=discard:chaos soak" "relay_transport=discard:chaos soak" \
    "maillog_file=/var/log/postfix-chaos.log" "smtpd_client_connection_count_limit=0" \
    "smtpd_client_connection_rate_limit=0" "message_size_limit=10240000" "default_process_limit=200" \
    "enable_long_queue_ids=yes"
postconf -M "smtp/inet" > /dev/null 2>&1 && postconf -MX "smtp/inet"
postconf -Me "127.0.0.1:$POSTFIX_PORT/inet=127.0.0.1:$POSTFIX_PORT inet n - n - - smtpd"
postsuper -d ALL > /dev/null 2>&1 || true
: > /var/log/postfix-chaos.log
postfix start > "$out/postfix.log" 2>&1 || die "postfix did not start: $(cat "$out/postfix.log")"
say "Postfix $(postconf -h mail_version) on 127.0.0.1:$POSTFIX_PORT, discarding after queueing"

# ------------------------------------------------------------------------------------------------ the forwarder
echo off > "$control"
python3 "$here/chaos/chaos.py" proxy --control "$control" --map "$SMTP_PROXY:$POSTFIX_PORT" \
    --map "${proxy_port[0]}:${node_port[0]}" --map "${proxy_port[1]}:${node_port[1]}" > "$out/proxy.log" 2>&1 &
proxy_pid=$!

# ------------------------------------------------------------------------------------------------ the servers
db_url="jdbc:postgresql://127.0.0.1:${proxy_port[0]},127.0.0.1:${proxy_port[1]}/test?targetServerType=primary"
for i in 0 1; do
    s=${servers[$i]} dir=$wlp/usr/servers/${servers[$i]}
    rm -rf "$dir"
    cp -r "$wlp/usr/servers/mailqueue" "$dir"
    rm -rf "$dir/logs" "$dir/workarea"
    cat > "$dir/configDropins/overrides/zz-chaos.xml" <<EOF
<server>
    <variable name="http.port" value="${http_port[$i]}"/>
    <variable name="https.port" value="$((9543 + i))"/>
    <variable name="iiop.port" value="$((2811 + i))"/>
    <variable name="iiops.port" value="$((9412 + i))"/>
    <variable name="mailqueue.smtp.host" value="127.0.0.1"/>
    <variable name="mailqueue.smtp.port" value="$SMTP_PROXY"/>
    <variable name="mailqueue.db.url" value="$db_url"/>
    <variable name="mailqueue.db.user" value="postgres"/>
    <variable name="mailqueue.db.password" value="postgres"/>
    <variable name="mailqueue.db.schema" value="mailqueue"/>
    <variable name="mailqueue.delivery.backoff.min.ms" value="$BACKOFF_MIN_MS"/>
    <variable name="mailqueue.delivery.backoff.max.ms" value="$BACKOFF_MAX_MS"/>
    <variable name="mailqueue.message-id.domain" value="chaos.test"/>
</server>
EOF
done
start_server() { # $1: index
    local s=${servers[$1]}
    "$wlp/bin/server" run "$s" >> "$out/$s.console.log" 2>&1 &
    local i
    for ((i = 0; i < 300; i++)); do
        [[ $(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:${http_port[$1]}/health/ready") == 200 ]] && return 0
        sleep 1
    done
    say "WARNING: $s not ready after 300 s"
}
start_server 0
start_server 1
say "servers ${servers[0]} (:${http_port[0]}) and ${servers[1]} (:${http_port[1]}) ready"

# ------------------------------------------------------------------------------------------------ faults
# Each fault's moment (seconds after the load starts) and parameters are drawn from SEED before anything runs, so
# that a run is repeated by its seed; a fault whose moment comes while the previous one still lasts starts after it.
plan=() bag=() offset=0
while true; do
    offset=$(( offset + GAP_MIN_S + RANDOM % (GAP_MAX_S - GAP_MIN_S + 1) ))
    (( offset + 60 < MINUTES * 60 )) || break
    if (( ${#bag[@]} == 0 )); then
        bag=(kill9 pgrestart failover relay netem)
        for ((i = ${#bag[@]} - 1; i > 0; i--)); do j=$((RANDOM % (i + 1))); t=${bag[$i]}; bag[$i]=${bag[$j]}; bag[$j]=$t; done
    fi
    kind=${bag[0]} bag=("${bag[@]:1}")
    case $kind in
        kill9) a=$((RANDOM % 2)) b=$((5 + RANDOM % 11)) c=0 lasts=$((b + 90)) ;;   # server, seconds down
        relay) a=$((20 + RANDOM % 41)) b=0 c=0 lasts=$a ;;                           # seconds down
        netem) a=$((20 + RANDOM % 61)) b=$((1 + RANDOM % 5)) c=$((30 + RANDOM % 61)) lasts=$c ;;  # ms, %, s
        *) a=0 b=0 c=0 lasts=20 ;;
    esac
    plan+=("$offset $kind $a $b $c")
    offset=$(( offset + lasts ))
done
printf '%s\n' "${plan[@]}" > "$out/plan.txt"
: > "$out/faults.tsv"
say "plan (s after the load starts, kind, parameters): $(paste -sd ';' "$out/plan.txt")"

fault_kill9() { # $1 server index, $2 seconds down
    local pid; pid=$(jvm_pid "${servers[$1]}")
    say "FAULT kill9 ${servers[$1]} (pid ${pid:-none}), started again in $2 s"
    [[ -n $pid ]] && kill -9 "$pid"
    sleep "$2"
    start_server "$1"
    say "END kill9 ${servers[$1]} ready again"
}
fault_pgrestart() {
    say "FAULT pgrestart ${nodes[$primary]}"
    pg_ctlcluster "$pgv" "${nodes[$primary]}" restart -m fast >> "$out/pg.log" 2>&1
    say "END pgrestart"
}
fault_failover() {
    local old=$primary new=$((1 - primary))
    say "FAULT failover ${nodes[$old]} stopped (immediate), ${nodes[$new]} promoted"
    pg_ctlcluster "$pgv" "${nodes[$old]}" stop -m immediate >> "$out/pg.log" 2>&1
    sleep 1
    pg_conftool "$pgv" "${nodes[$new]}" remove synchronous_standby_names 2>/dev/null || true
    pg_ctlcluster "$pgv" "${nodes[$new]}" promote >> "$out/pg.log" 2>&1
    primary=$new
    sql "SELECT pg_reload_conf()" > /dev/null
    say "failover: ${nodes[$new]} takes writes; rebuilding ${nodes[$old]} as its standby"
    base_backup "$old"
    pg_ctlcluster "$pgv" "${nodes[$old]}" start >> "$out/pg.log" 2>&1
    pg_conftool "$pgv" "${nodes[$new]}" set synchronous_standby_names "${nodes[$old]}"
    sql "SELECT pg_reload_conf()" > /dev/null
    local i
    for ((i = 0; i < 100; i++)); do
        [[ $(sql "SELECT sync_state FROM pg_stat_replication WHERE application_name = '${nodes[$old]}'") == sync ]] && break
        sleep 0.2
    done
    say "END failover: ${nodes[$old]} replicates ($(sql "SELECT sync_state FROM pg_stat_replication WHERE application_name = '${nodes[$old]}'"))"
}
fault_relay() { # $1 seconds down
    say "FAULT relay: Postfix stopped for $1 s"
    postfix stop >> "$out/postfix.log" 2>&1
    sleep "$1"
    postfix start >> "$out/postfix.log" 2>&1
    say "END relay: Postfix started"
}
fault_netem() { # $1 ms, $2 %, $3 s
    say "FAULT netem: $1 ms +-10 ms, $2 % loss for $3 s"
    echo "$1 10 $2" > "$control"
    sleep "$3"
    echo off > "$control"
    say "END netem"
}

sql "SELECT 1" > /dev/null
python3 "$here/chaos/chaos.py" load --servers "http://127.0.0.1:${http_port[0]},http://127.0.0.1:${http_port[1]}" \
    --mails "$MAILS" --rate "$(python3 -c "print($MAILS / ($MINUTES * 60))")" --run "chaos$stamp" \
    --out "$out/acked.tsv" > "$out/load.log" 2>&1 &
load_pid=$!
load_start=$(date +%s)
since_load() { echo $(( $(date +%s) - load_start )); }
say "load started: $MAILS mails at $(python3 -c "print(round($MAILS / ($MINUTES * 60), 1))") a second"
last_fault_end=$load_start
for entry in "${plan[@]}"; do
    read -r at kind a b c <<< "$entry"
    wait_s=$(( load_start + at - $(date +%s) ))
    (( wait_s > 0 )) && sleep "$wait_s"
    echo "$(since_load) start $kind (planned $at)" >> "$out/faults.tsv"
    case $kind in
        kill9) fault_kill9 "$a" "$b" ;;
        relay) fault_relay "$a" ;;
        netem) fault_netem "$a" "$b" "$c" ;;
        *) "fault_$kind" ;;
    esac
    last_fault_end=$(date +%s)
    echo "$(since_load) end $kind" >> "$out/faults.tsv"
done
say "no more faults; waiting for the load to finish"
wait "$load_pid" || die "the load failed: $(tail -3 "$out/load.log")"
load_done=$(date +%s)
load_pid=""
tail -1 "$out/load.log" | tee -a "$out/events.log"

# ------------------------------------------------------------------------------------------------ drain
accepted=$(wc -l < "$out/acked.tsv")
for ((i = 0; i < DRAIN_TIMEOUT_S; i += 2)); do
    left=$(sql "SELECT COUNT(*) FROM mailqueue.mail_queue" 2>/dev/null || echo "?")
    [[ $left == 0 ]] && break
    sleep 2
done
empty_at=$(date +%s)
say "queue empty (${left} left) $(( empty_at - last_fault_end )) s after the last fault ended, $(( empty_at - load_done )) s after the load's last mail"
for ((i = 0; i < 300; i++)); do
    [[ -z $(postqueue -j 2>/dev/null | head -1) ]] && break
    sleep 1
done
say "Postfix's queue: $(postqueue -j 2>/dev/null | wc -l) messages left"
sleep 2

sql "COPY (SELECT m.id, m.message_id, s.status,
        EXISTS (SELECT 1 FROM mailqueue.mail_attempt a WHERE a.mail_id = m.id AND a.outcome = 'IN_DOUBT')
      FROM mailqueue.mail_message m JOIN mailqueue.mail_state s ON s.mail_id = m.id) TO STDOUT" > "$out/mails.tsv"
cp /var/log/postfix-chaos.log "$out/postfix-chaos.log"
{
    echo "chaos soak $stamp, seed $SEED, $MAILS mails over $MINUTES min, $(cat "$out/commit.txt")"
    echo "accepted $accepted; queue empty $(( empty_at - last_fault_end )) s after the last fault ended and $(( empty_at - load_done )) s after the load's last mail (left: $left)"
    echo "faults (s after the load started):"
    sed 's/^/  /' "$out/faults.tsv"
    python3 "$here/chaos/chaos.py" tally --postfix-log "$out/postfix-chaos.log" --mails "$out/mails.tsv" \
        --acked "$out/acked.tsv" --json "$out/tally.json"
} | tee "$out/summary.txt"

# Negative control of the count: one more copy of a delivered mail's Message-ID straight into Postfix, and one
# finished mail that never went anywhere added to the queue's side; the tally must see one duplicate (not
# flagged in doubt) and one mail lost.
first=$(head -1 "$out/mails.tsv" | cut -f2)
python3 - "$first" "$POSTFIX_PORT" <<'PY'
import smtplib, sys
from email.message import EmailMessage
m = EmailMessage()
m["From"], m["To"], m["Subject"], m["Message-ID"] = "control@example.com", "r0@example.com", "control", sys.argv[1]
m.set_content("negative control of the chaos soak's count\n")
with smtplib.SMTP("127.0.0.1", int(sys.argv[2])) as s:
    s.send_message(m)
PY
sleep 3
{ cat "$out/mails.tsv"; printf '0\t<never-sent@control.test>\tSENT\tf\n'; } > "$out/control-mails.tsv"
cp /var/log/postfix-chaos.log "$out/control-postfix.log"
python3 "$here/chaos/chaos.py" tally --postfix-log "$out/control-postfix.log" --mails "$out/control-mails.tsv" \
    --acked "$out/acked.tsv" --json "$out/control.json" > "$out/control.txt"
real_dups=$(python3 -c "import json; print(json.load(open('$out/tally.json'))['duplicates (Message-IDs arrived more than once)'])")
real_lost=$(python3 -c "import json; print(json.load(open('$out/tally.json'))['lost: finished, never arrived'])")
control_dups=$(python3 -c "import json; print(json.load(open('$out/control.json'))['duplicates (Message-IDs arrived more than once)'])")
control_lost=$(python3 -c "import json; print(json.load(open('$out/control.json'))['lost: finished, never arrived'])")
if (( control_dups == real_dups + 1 && control_lost == real_lost + 1 )); then
    verdict="negative control: the count saw the injected duplicate and the lost mail ($control_dups duplicates, $control_lost lost)"
else
    verdict="negative control FAILED: duplicates $real_dups -> $control_dups, lost $real_lost -> $control_lost (each should grow by 1)"
fi
say "$verdict"
echo "$verdict" >> "$out/summary.txt"
