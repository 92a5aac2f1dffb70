#!/usr/bin/env bash
# Erasure benchmark (issue 51, point 4): how long the erasure of one address takes out of a long history.
# See src/benchmark/README.md.
#
#   bash src/benchmark/erasure.sh [finished mails]     (default 10000000)
#
# Starts the run server (mvn -P run,postgresql) with a test-only mailqueue.erasure.secret, empties the queue's tables
# in schema mailqueue, fills FINISHED finished mails of the past 90 days with history-fill.sql (plain SQL; then
# VACUUM ANALYZE), in which each address user<n>@example.com is a To recipient of about FINISHED / 1,000,000 mails.
# Then asks for the erasure of ADDRESS through POST /api/admin/erasures, polls its receipt until it completed, and
# prints the time from the request to the completion. What the erasure did is checked with SQL of this script's own:
# the mails that name the address, counted before and after (no LIKE: the To list split into addresses), and the
# mails left. Output: src/benchmark/target/erasure-<time>/. KEEP=0 empties the tables at the end.
#
# Knobs (environment, defaults in brackets): ADDRESS [user4711@example.com], CHUNK [500000 mails a fill
# transaction], KEEP [1], FILL [1; 0 keeps the history a previous run left in the tables].
set -euo pipefail

FINISHED=${1:-10000000}
ADDRESS=${ADDRESS:-user4711@example.com}
CHUNK=${CHUNK:-500000}
KEEP=${KEEP:-1}
HTTP_PORT=9080
HTTPS_PORT=9443

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
out=$here/target/erasure-$(date +%Y%m%d-%H%M%S)
psql_cmd=(psql -h 127.0.0.1 -U postgres -d test -X -q -v ON_ERROR_STOP=1)
api=(curl -sk -u admin:admin -H 'Accept: application/json')

say() { printf 'erasure.sh: %s\n' "$*"; }
die() { printf 'erasure.sh: ERROR: %s\n' "$*" >&2; exit 1; }
sql() { "${psql_cmd[@]}" -Atc "$1"; }
source "$here/run-server.sh"

[[ $FINISHED =~ ^[0-9]+$ ]] || die "the count must be a number"
[[ $ADDRESS =~ ^[a-z0-9.]+@[a-z0-9.]+$ ]] || die "ADDRESS must be a plain lower-case address"
for tool in psql mvn java ss curl jq bc; do command -v "$tool" >/dev/null || die "$tool not found"; done
bench_ready "$out" $HTTP_PORT $HTTPS_PORT 3025

say "starting the server: mvn -P run,postgresql, with an erasure secret (log: $out/server.log)"
start_run_server "$out/server.log" -Dliberty.var.mailqueue.erasure.secret=benchmark-erasure-secret-of-32-characters

fill_history "$FINISHED" "$CHUNK" "$out/fill.log"

# The mails that name the address, by splitting the address columns (not the erasure's LIKE).
naming="FROM mailqueue.mail_message WHERE '$ADDRESS' = ANY (string_to_array(lower(coalesce(to_addresses, '')), ','))
    OR '$ADDRESS' = ANY (string_to_array(lower(coalesce(cc_addresses, '')), ','))
    OR '$ADDRESS' = ANY (string_to_array(lower(coalesce(bcc_addresses, '')), ','))
    OR lower(from_address) = '$ADDRESS' OR lower(reply_to) = '$ADDRESS'"
named_before=$(sql "SELECT count(*) $naming")
recipients_before=$(sql "SELECT count(*) FROM mailqueue.mail_recipient WHERE lower(address) = '$ADDRESS'")
mails_before=$(sql "SELECT count(*) FROM mailqueue.mail_message")
say "mails $mails_before; naming $ADDRESS: $named_before mails, $recipients_before recipient rows"

say "asking for the erasure of $ADDRESS"
started=$(date +%s.%N)
"${api[@]}" -X POST -H 'Content-Type: application/json' -d "{\"addresses\":[\"$ADDRESS\"]}" \
    -D "$out/request.headers" "https://localhost:$HTTPS_PORT/api/admin/erasures" > "$out/request.json"
id=$(jq -r .id "$out/request.json")
[[ $id =~ ^[0-9]+$ ]] || { cat "$out/request.json"; die "the erasure was refused"; }
for ((i = 0; ; i++)); do
    "${api[@]}" "https://localhost:$HTTPS_PORT/api/admin/erasures/$id" > "$out/receipt.json"
    [[ $(jq -r .completedAt "$out/receipt.json") != null ]] && break
    status=$(jq -r .jobStatus "$out/receipt.json")
    [[ $status == FAILED || $status == STOPPED ]] && { cat "$out/receipt.json"; die "the erasure's job $status"; }
    (( i < 36000 )) || die "the erasure still runs after an hour"
    sleep 0.1
done
wall=$(echo "$(date +%s.%N) - $started" | bc)
named_after=$(sql "SELECT count(*) $naming")
recipients_after=$(sql "SELECT count(*) FROM mailqueue.mail_recipient WHERE lower(address) = '$ADDRESS'")
mails_after=$(sql "SELECT count(*) FROM mailqueue.mail_message")

{
    echo "=== mailqueue erasure benchmark ==="
    echo "commit              $(git -C "$repo" rev-parse --short HEAD)$(git -C "$repo" diff --quiet || echo ' (uncommitted changes)')"
    echo "history             $FINISHED finished mails over 90 days; erased: one address, $ADDRESS"
    echo "machine             $(nproc) x $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
    echo "erasure             $id: $(jq -c '{jobStatus, counts}' "$out/receipt.json")"
    printf 'time                %.2f s from the request to the receipt'"'"'s completion (polled every 0.1 s)\n' "$wall"
    echo "checked with SQL    mails naming it $named_before -> $named_after; its recipient rows $recipients_before -> $recipients_after;"
    echo "                    mails $mails_before -> $mails_after: $(( mails_before - mails_after )) deleted"
} | tee "$out/summary.txt"
