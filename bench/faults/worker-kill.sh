#!/usr/bin/env bash
# Fault: kill -9 of a worker process while it runs jobs. Expected: its started jobs end
# error/worker_lost once the lease runs out (never re-run); its claimed-but-not-started and the
# queued jobs are run by the other worker; nothing stays open.
source "$(dirname "$0")/../lib.sh"
export NIXEXEC_JOBS_LEASE=10s NIXEXEC_JOBS_HEARTBEAT=2s
start_cluster
URL=$(api_url); J="node $REPO/bench/faults/jobs.mjs"
# 6 jobs that run 25 s (each worker takes 2 at a time), then 20 short ones behind them
$J submit "$URL" "$ADMIN_KEY" 6 '{"language":"python","code":"import time\nprint(\"start\", flush=True)\ntime.sleep(25)\nprint(\"end\")"}' >"$WORK/submit.jsonl"
$J submit "$URL" "$ADMIN_KEY" 20 '{"language":"bash","code":"echo ok"}' >>"$WORK/submit.jsonl"
jq -r 'select(.ok) | .id' "$WORK/submit.jsonl" >"$WORK/ids"
log "accepted $(wc -l <"$WORK/ids") jobs; waiting until worker1 runs some"
for _ in $(seq 120); do
  running=$(curl -fs -H "Authorization: Bearer $ADMIN_KEY" "$URL/v1/jobs?status=running&limit=200" \
    | jq '[.items[] | select(.node_id=="worker1")] | length')
  [[ $running -ge 1 ]] && break
  sleep 0.5
done
log "worker1 runs $running jobs: kill -9 ${SVC_PID[worker1]}"
sandbox_procs() { ps -eo uid=,pid=,args= | awk '$1 >= 3200000 && $1 < 3204096' || true; }
log "sandbox processes (host uids 3200000+) before the kill: $(sandbox_procs | wc -l)"
kill -9 "${SVC_PID[worker1]}"; killed_at=$(date +%s)
wait "${SVC_PID[worker1]}" 2>/dev/null || true
unset 'SVC_PID[worker1]'
sleep 1
log "sandbox processes 1 s after the kill (worker2's included):"; sandbox_procs >&2
$J wait "$URL" "$ADMIN_KEY" "$WORK/ids" 180 >"$WORK/result.jsonl"
done_at=$(date +%s)
echo "== outcome (kill at +0 s, all terminal at +$((done_at - killed_at)) s)"
jq -r '[.status, (.error // "-"), .node_id, ("attempt " + (.attempt|tostring))] | join(" ")' "$WORK/result.jsonl" | sort | uniq -c
echo "== worker_lost jobs: finished after the kill (s)"
jq -r --argjson k "$killed_at" 'select(.error=="worker_lost") | (.finished_at | sub("\\.[0-9]+";"") | fromdateiso8601) - $k' "$WORK/result.jsonl" | sort -n | tr '\n' ' '; echo
echo "== not terminal: $(jq -r 'select(.status|IN("succeeded","failed","timed_out","cancelled","error")|not) | .id' "$WORK/result.jsonl" | wc -l)"
echo "== sandbox processes left at the end: $(sandbox_procs | wc -l)"; sandbox_procs
