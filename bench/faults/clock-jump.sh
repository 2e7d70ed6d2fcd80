#!/usr/bin/env bash
# Fault: the database's clock jumps, forward by more than the lease and then back, while healthy
# workers run jobs. PostgreSQL runs under libfaketime (package `faketime`) with its offset read
# from a file on every call, so the jump happens to the running server; its monotonic clock is
# left alone, as a real wall-clock jump leaves it. Lease 10 s, heartbeat 2 s; 4 python jobs
# sleeping 20 s fill the two workers' 4 slots; the backward jump (to 60 s behind the nodes'
# clocks) comes with 4 short jobs queued behind them and 4 submitted right after it. Expected
# (issue 7: "clock jump: leases are not stolen from a healthy worker"): no job is taken by the reaper, all end `succeeded` on their first attempt; the short jobs start
# when a slot frees, not when the database's clock catches up with the nodes' (a job's created_at
# and run_after come from the clock of the node that queued it).
# Needs (as every fault script): root, Node >= 20, PostgreSQL 15 binaries, jq, python3, curl,
# runuser, and here faketime.
source "$(dirname "$0")/../lib.sh"
JUMP_S=${JUMP_S:-60}
FAKETIME_LIB=${FAKETIME_LIB:-/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1}
[[ -f $FAKETIME_LIB ]] || { log "libfaketime missing: apt-get install -y faketime"; exit 1; }
export NIXEXEC_JOBS_LEASE=10s NIXEXEC_JOBS_HEARTBEAT=2s
OFFSET_FILE=$WORK/pg-clock-offset
echo +0 >"$OFFSET_FILE"
chmod 644 "$OFFSET_FILE"

# lib.sh's start, with PostgreSQL's wall clock taken from the offset file
pg_ctl_start() {
  as_pg env LD_PRELOAD="$FAKETIME_LIB" FAKETIME_TIMESTAMP_FILE="$OFFSET_FILE" FAKETIME_NO_CACHE=1 \
    FAKETIME_DONT_FAKE_MONOTONIC=1 \
    "$PG_BIN/pg_ctl" -D "$WORK/pg" -l "$WORK/pgsock/pg.log" -w \
    -o "-p $PG_PORT -k $WORK/pgsock -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=off" start >/dev/null
}
# seconds the database's clock is ahead of this host's, as a new connection and as the service's
# own connections (the newest node heartbeat, written every 2 s) see it
db_skew() { psql_q "SELECT round(extract(epoch FROM clock_timestamp()) - $(date +%s.%N))"; }
service_skew() { psql_q "SELECT round(extract(epoch FROM max(heartbeat_at)) - $(date +%s.%N)) FROM nodes"; }
jump() {
  echo "$1" >"$OFFSET_FILE"
  log "database clock offset now $1 s (skew: new connection $(db_skew) s)"
  sleep 3
  log "skew seen by the service's connections: $(service_skew) s (about -2 s is the heartbeat's age)"
}
wait_running() {
  for _ in $(seq 120); do
    running=$(curl -fs -H "Authorization: Bearer $ADMIN_KEY" "$URL/v1/jobs?status=running&limit=200" | jq '.items | length')
    [[ $running -ge $1 ]] && return 0
    sleep 0.5
  done
  log "only $running jobs running"
}
outcomes() {
  jq -r '[.status, (.error // "-"), .node_id, ("attempt " + (.attempt|tostring)), ("stdout " + (.stdout_bytes|tostring) + " B")] | join(" ")' "$1" | sort | uniq -c
}

start_cluster
URL=$(api_url); J="node $REPO/bench/faults/jobs.mjs"
SLEEPER='{"language":"python","code":"import time\nprint(\"start\", flush=True)\ntime.sleep(20)\nprint(\"end\")"}'
log "database clock skew before: $(db_skew) s"

echo "== forward jump (+${JUMP_S} s) while 4 jobs run"
$J submit "$URL" "$ADMIN_KEY" 4 "$SLEEPER" >"$WORK/fwd-submit.jsonl"
jq -r 'select(.ok) | .id' "$WORK/fwd-submit.jsonl" >"$WORK/fwd-ids"
wait_running 4
sleep 2
t0=$SECONDS
jump "+$JUMP_S"
$J wait "$URL" "$ADMIN_KEY" "$WORK/fwd-ids" 120 >"$WORK/fwd-result.jsonl"
echo "all terminal $((SECONDS - t0)) s after the jump"
outcomes "$WORK/fwd-result.jsonl"

echo "== backward jump (-$((2 * JUMP_S)) s: the database ${JUMP_S} s behind the nodes) while 4 jobs run and 4 wait queued; 4 more submitted after it"
$J submit "$URL" "$ADMIN_KEY" 4 "$SLEEPER" >"$WORK/back-submit.jsonl"
wait_running 4
$J submit "$URL" "$ADMIN_KEY" 4 '{"language":"python","code":"print(6*7)"}' >>"$WORK/back-submit.jsonl"
queued=$(curl -fs -H "Authorization: Bearer $ADMIN_KEY" "$URL/v1/jobs?status=queued&limit=200" | jq '.items | length')
log "$queued jobs queued behind the running ones"
t0=$SECONDS
jump "-$JUMP_S"
$J submit "$URL" "$ADMIN_KEY" 4 '{"language":"bash","code":"echo after"}' >"$WORK/after-submit.jsonl"
cat "$WORK/after-submit.jsonl" >>"$WORK/back-submit.jsonl"
jq -r 'select(.ok) | .id' "$WORK/back-submit.jsonl" >"$WORK/back-ids"
jq -r 'select(.ok) | .id' "$WORK/after-submit.jsonl" >"$WORK/after-ids"
$J wait "$URL" "$ADMIN_KEY" "$WORK/after-ids" 180 >/dev/null
echo "the jobs submitted after the jump terminal $((SECONDS - t0)) s after it (the sleepers had about 16 s left)"
$J wait "$URL" "$ADMIN_KEY" "$WORK/back-ids" 180 >"$WORK/back-result.jsonl"
echo "all terminal $((SECONDS - t0)) s after the jump"
outcomes "$WORK/back-result.jsonl"
echo "== run time as stored (finished_at - started_at, the database's clock) of the 20 s sleepers: forward $(
  psql_q "SELECT string_agg(DISTINCT round(extract(epoch FROM finished_at - started_at))::text, ',') FROM jobs WHERE id::text IN ($(sed "s/.*/'&'/" "$WORK/fwd-ids" | paste -sd,))") s, backward $(
  psql_q "SELECT string_agg(DISTINCT round(extract(epoch FROM finished_at - started_at))::text, ',') FROM jobs WHERE code LIKE '%sleep(20)%' AND id::text NOT IN ($(sed "s/.*/'&'/" "$WORK/fwd-ids" | paste -sd,))") s"

echo "== reaper log lines: $(grep -h 'took back' "$WORK"/*.log | sed 's/^.*INFO/INFO/' | sort | uniq -c | tr '\n' ';')"
echo "== taken back (database): $(psql_q "SELECT count(*) FROM audit_events WHERE kind = 'requeued'") requeued, $(psql_q "SELECT count(*) FROM jobs WHERE error_code = 'worker_lost'") worker_lost"
echo "== 500s or stack traces in the logs: $(grep -c ' 500\|Exception' "$WORK"/api.log "$WORK"/worker*.log | tr '\n' ' ')"
