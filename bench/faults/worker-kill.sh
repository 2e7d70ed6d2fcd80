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
sandboxes_before=$(pgrep -c -P "${SVC_PID[worker1]}" || true)
kill -9 "${SVC_PID[worker1]}"; killed_at=$(date +%s)
unset 'SVC_PID[worker1]'
sleep 1
orphans=$(ps -eo pid,ppid,user,args | awk '$3 ~ /^3[0-9]{6}$/ || $3 ~ /^32[0-9]{5}$/' | grep -c sleep || true)
log "sandbox processes of worker1 still alive 1 s after the kill: $orphans (children before: $sandboxes_before)"
$J wait "$URL" "$ADMIN_KEY" "$WORK/ids" 180 >"$WORK/result.jsonl"
done_at=$(date +%s)
echo "== outcome (kill at +0 s, all terminal at +$((done_at - killed_at)) s)"
jq -r '[.status, (.error // "-"), .node_id, ("attempt " + (.attempt|tostring))] | join(" ")' "$WORK/result.jsonl" | sort | uniq -c
echo "== worker_lost jobs: finished after the kill (s)"
jq -r --argjson k "$killed_at" 'select(.error=="worker_lost") | (.finished_at | sub("\\.[0-9]+";"") | fromdateiso8601) - $k' "$WORK/result.jsonl" | sort -n | tr '\n' ' '; echo
echo "== not terminal: $(jq -r 'select(.status|IN("succeeded","failed","timed_out","cancelled","error")|not) | .id' "$WORK/result.jsonl" | wc -l)"
ps -eo user,args | awk '$1 ~ /^32[0-9]{5}$/' | head
