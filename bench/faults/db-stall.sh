#!/usr/bin/env bash
# Fault: a database that stalls for longer than the lease (every PostgreSQL process stopped with
# SIGSTOP for STALL_S seconds, then continued), while healthy workers run jobs. Expected (issue 7:
# "slow database: leases are not stolen from a healthy worker"): the running jobs finish normally
# on their workers; none ends worker_lost; nothing runs twice.
source "$(dirname "$0")/../lib.sh"
STALL_S=${STALL_S:-15}
export NIXEXEC_JOBS_LEASE=10s NIXEXEC_JOBS_HEARTBEAT=2s
start_cluster
URL=$(api_url); J="node $REPO/bench/faults/jobs.mjs"
$J submit "$URL" "$ADMIN_KEY" 4 '{"language":"python","code":"import time\nprint(\"start\", flush=True)\ntime.sleep(25)\nprint(\"end\")"}' >"$WORK/submit.jsonl"
jq -r 'select(.ok) | .id' "$WORK/submit.jsonl" >"$WORK/ids"
for _ in $(seq 120); do
  running=$(curl -fs -H "Authorization: Bearer $ADMIN_KEY" "$URL/v1/jobs?status=running&limit=200" | jq '.items | length')
  [[ $running -ge 4 ]] && break
  sleep 0.5
done
postmaster=$(head -1 "$WORK/pg/postmaster.pid")
pg_pids=("$postmaster" $(pgrep -P "$postmaster"))
log "$running jobs running; SIGSTOP to ${#pg_pids[@]} PostgreSQL processes for ${STALL_S}s (lease 10 s)"
kill -STOP "${pg_pids[@]}"
sleep "$STALL_S"
kill -CONT "${pg_pids[@]}"
log "PostgreSQL continued"
$J wait "$URL" "$ADMIN_KEY" "$WORK/ids" 120 >"$WORK/result.jsonl"
echo "== outcomes"
jq -r '[.status, (.error // "-"), .node_id, ("attempt " + (.attempt|tostring)), ("stdout " + (.stdout_bytes|tostring) + " B")] | join(" ")' "$WORK/result.jsonl" | sort | uniq -c
echo "== reaper log lines: $(grep -h 'took back' "$WORK"/*.log | sed 's/^.*INFO/INFO/' | sort | uniq -c | tr '\n' ';')"
