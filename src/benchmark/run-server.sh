# Sourced by the benchmarks that run the queue's run server (history.sh, retention.sh, erasure.sh), after they define
# say, die, here, repo and psql_cmd. RUN_DB picks the database: postgresql (default; database test, schema mailqueue)
# or mariadb (database mailqueue; retention.sh only). Sets mvn_pid while the server runs.
mvn_pid=""
RUN_DB=${RUN_DB:-postgresql}
mariadb_cmd=(mysql -h 127.0.0.1 -P 3306 -u root -N -B mailqueue)

port_busy() { ss -ltnH "sport = :$1" | grep -q .; }

# db_sql SQL: one statement on the run server's database, its rows tab-separated, no header.
db_sql() {
    if [[ $RUN_DB == mariadb ]]; then "${mariadb_cmd[@]}" -e "$1"; else "${psql_cmd[@]}" -Atc "$1"; fi
}

# start_run_server LOG [MAVEN ARGS...]: mvn -P run,$RUN_DB package in the repository, with the arguments (e.g.
# -Dliberty.var.<setting>=<value>), its output to LOG; returns once the REST API answers (a sender's GET of mail 0 is
# problem details); dies when the build or the start fails or the API is not up in 400 s.
start_run_server() {
    local log=$1 i
    shift
    ( cd "$repo" && exec mvn -P "run,$RUN_DB" -DskipTests package "$@" ) > "$log" 2>&1 &
    mvn_pid=$!
    for ((i = 0; ; i++)); do
        [[ $(curl -s -u sender:sender -o /dev/null -w '%{content_type}' "http://localhost:9080/api/mails/0") == application/problem+json* ]] && break
        kill -0 "$mvn_pid" 2>/dev/null || { tail -40 "$log"; die "the server build or start failed"; }
        (( i < 400 )) || die "the REST API did not come up"
        sleep 1
    done
    say "server up after ${i} s"
}

# stop_run_server: SIGTERM to Maven, which stops Liberty; waits for it up to 90 s.
stop_run_server() {
    local i
    if [[ -n $mvn_pid ]] && kill -0 "$mvn_pid" 2>/dev/null; then
        kill -TERM "$mvn_pid"
        for ((i = 0; i < 90; i++)); do kill -0 "$mvn_pid" 2>/dev/null || break; sleep 1; done
    fi
    mvn_pid=""
}

# empty_queue_tables: every mail, its log and what is derived from them, in the run server's schema (when it exists).
empty_queue_tables() {
    if [[ $RUN_DB == mariadb ]]; then
        [[ $(db_sql "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'mailqueue'
            AND TABLE_NAME = 'RETENTION_MARK'") == 1 ]] || return 0
        "${mariadb_cmd[@]}" -e 'SET FOREIGN_KEY_CHECKS = 0; TRUNCATE MAIL_RECIPIENT; TRUNCATE MAIL_ATTACHMENT;
            TRUNCATE MAIL_HEADER; TRUNCATE MAIL_QUEUE; TRUNCATE MAIL_RAW; TRUNCATE MAIL_ATTEMPT; TRUNCATE WEBHOOK_DELIVERY;
            TRUNCATE MAIL_MESSAGE; TRUNCATE MAIL_LOG_HOUR; SET FOREIGN_KEY_CHECKS = 1;
            UPDATE MAIL_STATUS_COUNT SET MAILS = 0; UPDATE MAIL_LOG_HOUR_MARK SET COUNTED_UNTIL = "1970-01-01 00:00:00";
            UPDATE RETENTION_MARK SET REACHED = "1970-01-01 00:00:00"'
        return
    fi
    [[ $("${psql_cmd[@]}" -Atc "SELECT to_regclass('mailqueue.mail_status_count') IS NOT NULL") == t ]] || return 0
    "${psql_cmd[@]}" -c 'TRUNCATE mailqueue.mail_message, mailqueue.mail_attempt, mailqueue.webhook_delivery CASCADE' \
        -c 'UPDATE mailqueue.mail_status_count SET mails = 0'
    if [[ $("${psql_cmd[@]}" -Atc "SELECT to_regclass('mailqueue.mail_log_hour') IS NOT NULL") == t ]]; then
        "${psql_cmd[@]}" -c 'TRUNCATE mailqueue.mail_log_hour' \
            -c "UPDATE mailqueue.mail_log_hour_mark SET counted_until = '1970-01-01 00:00:00'"
    fi
    if [[ $("${psql_cmd[@]}" -Atc "SELECT to_regclass('mailqueue.retention_mark') IS NOT NULL") == t ]]; then
        "${psql_cmd[@]}" -c "UPDATE mailqueue.retention_mark SET reached = '1970-01-01 00:00:00'"
    fi
}

# bench_ready OUT PORTS...: dies unless the database answers and the ports are free; makes OUT; on exit stops the run
# server and, with KEEP=0, empties the queue's tables.
bench_ready() {
    local out=$1 port
    shift
    if [[ $RUN_DB == mariadb ]]; then
        mysql -h 127.0.0.1 -P 3306 -u root -e 'SELECT 1' >/dev/null || die "MariaDB on 127.0.0.1:3306 (user root) not reachable"
    else
        "${psql_cmd[@]}" -Atc 'SELECT 1' >/dev/null || die "PostgreSQL on 127.0.0.1:5432 (database test, user postgres) not reachable"
    fi
    for port in "$@"; do ! port_busy "$port" || die "port $port is in use"; done
    mkdir -p "$out"
    say "output in $out"
    trap bench_cleanup EXIT
    trap 'exit 130' INT TERM
}

bench_cleanup() {
    set +e
    stop_run_server
    [[ ${KEEP:-1} == 0 ]] && { say "emptying the tables (KEEP=0)"; empty_queue_tables; }
}

# fill_history FINISHED CHUNK LOG: empties the queue's tables and fills FINISHED finished mails of the past 90 days
# (no queued ones) with history-fill.sql, or on MariaDB history-fill-mariadb.sql; then has the tables analysed. The
# fill's output to LOG. With FILL=0 it keeps the history a previous run left in the tables.
fill_history() {
    local finished=$1 chunk=$2 log=$3 start
    if [[ ${FILL:-1} == 0 ]]; then
        say "keeping the history in the tables (FILL=0)"
        return
    fi
    say "emptying the queue's tables, then filling $finished finished mails of the past 90 days ($RUN_DB)"
    empty_queue_tables
    start=$(date +%s)
    if [[ $RUN_DB == mariadb ]]; then
        { "${mariadb_cmd[@]}" < "$here/history-fill-mariadb.sql" \
            && "${mariadb_cmd[@]}" -e "CALL fill_history($finished, $chunk); DROP PROCEDURE fill_history"; } > "$log" 2>&1 \
            || { cat "$log"; die "the fill failed"; }
        "${mariadb_cmd[@]}" -e 'ANALYZE TABLE MAIL_MESSAGE, MAIL_ATTEMPT, MAIL_RECIPIENT, MAIL_QUEUE' > /dev/null
    else
        "${psql_cmd[@]}" -v finished="$finished" -v queued=0 -v chunk="$chunk" -f "$here/history-fill.sql" > "$log" 2>&1 \
            || { cat "$log"; die "the fill failed"; }
        "${psql_cmd[@]}" -c 'VACUUM ANALYZE mailqueue.mail_message, mailqueue.mail_attempt, mailqueue.mail_recipient, mailqueue.mail_queue'
    fi
    say "filled and analysed in $(( $(date +%s) - start )) s"
}
