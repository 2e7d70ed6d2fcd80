#!/usr/bin/env bash
# Fault: PostgreSQL restarted under load (stopped for DOWN_S seconds, fast shutdown: every
# connection is cut). Expected: no process restarts, readiness is DOWN while the database is away
# and UP after, submissions in the outage are refused with 503 (never a 500 or a half-stored job),
# every accepted job ends in exactly one terminal state (within WAIT_S, default 120 s) and its
# event stream holds exactly one terminal status event and one result event, agreeing with the job
# (as bench/load.mjs checks), jobs in flight end honestly.
# Needs (as every fault script): root, Node >= 20, PostgreSQL 15 binaries, jq, python3, curl, runuser.
source "$(dirname "$0")/../lib.sh"
DOWN_S=${DOWN_S:-10}
start_cluster
URL=$(api_url); J="node $REPO/bench/faults/jobs.mjs"
AUTH=(-H "Authorization: Bearer $ADMIN_KEY" -H 'Content-Type: application/json')
$J submit "$URL" "$ADMIN_KEY" 6 '{"language":"python","code":"import time\nfor i in range(16):\n    print(i, flush=True)\n    time.sleep(0.5)"}' >"$WORK/submit.jsonl"
$J submit "$URL" "$ADMIN_KEY" 20 '{"language":"bash","code":"echo ok"}' >>"$WORK/submit.jsonl"
# a steady trickle of submissions across the outage, one every 0.3 s
(
  end=$((SECONDS + DOWN_S + 25))
  while ((SECONDS < end)); do
    curl -s -o "$WORK/last.json" -w '%{http_code}\n' -m 20 "${AUTH[@]}" -d '{"language":"bash","code":"echo trickle"}' "$URL/v1/jobs" >"$WORK/code" || echo 000 >"$WORK/code"
    code=$(cat "$WORK/code")
    if [[ $code == 201 ]]; then echo "{\"ok\":true,\"id\":$(jq .id "$WORK/last.json")}"; else echo "{\"ok\":false,\"status\":$code,\"body\":$(jq -c . "$WORK/last.json" 2>/dev/null || echo null)}"; fi
    sleep 0.3
  done >>"$WORK/submit.jsonl"
) &
trickle=$!
sleep 4
ready() { for n in api worker1 worker2; do printf '%s=%s ' "$n" "$(curl -s -o /dev/null -w '%{http_code}' -m 5 "http://127.0.0.1:${SVC_PORT[$n]}/q/health/ready")"; done; }
log "before: $(ready)"
log "stopping PostgreSQL (fast) for ${DOWN_S}s"
pg_ctl_stop fast
sleep 3
log "during: $(ready)"
sleep $((DOWN_S - 3))
pg_ctl_start
log "PostgreSQL started again"
for i in $(seq 60); do r=$(ready); [[ $r == *"api=200 worker1=200 worker2=200"* ]] && break; sleep 1; done
log "after ${i}s: $r"
wait "$trickle"
jq -r 'select(.ok) | .id' "$WORK/submit.jsonl" >"$WORK/ids"
$J wait "$URL" "$ADMIN_KEY" "$WORK/ids" "${WAIT_S:-120}" >"$WORK/result.jsonl"
echo "== submissions: $(jq -r 'if .ok then "201" else (.status|tostring) end' "$WORK/submit.jsonl" | sort | uniq -c | tr '\n' ' ')"
jq -r 'select(.ok|not) | .body.title // .detail // empty' "$WORK/submit.jsonl" | sort | uniq -c
echo "== accepted jobs by outcome"
jq -r '[.status, (.error // "-"), ("attempt " + (.attempt|tostring))] | join(" ")' "$WORK/result.jsonl" | sort | uniq -c
echo "== not terminal: $(jq -r 'select(.status|IN("succeeded","failed","timed_out","cancelled","error")|not) | .id' "$WORK/result.jsonl" | wc -l)"
$J events "$URL" "$ADMIN_KEY" "$WORK/ids" >"$WORK/events.jsonl"
echo "== event streams with exactly one terminal status event (the job's status) and one result event: $(
  jq -s --slurpfile r "$WORK/result.jsonl" '($r | map({(.id): .status}) | add) as $st
    | map(select(.http == 200 and (.terminal | length) == 1 and .results == 1 and .terminal[0] == $st[.id])) | length' "$WORK/events.jsonl") of $(wc -l <"$WORK/ids")"
jq -c --slurpfile r "$WORK/result.jsonl" '($r | map({(.id): .status}) | add) as $st
  | select(.http != 200 or (.terminal | length) != 1 or .results != 1 or .terminal[0] != $st[.id]) | . + {job_status: $st[.id]}' "$WORK/events.jsonl" | head -20
echo "== jobs in the database that no client got an id for: $(psql_q "SELECT count(*) FROM jobs WHERE id::text NOT IN ($(sed "s/.*/'&'/" "$WORK/ids" | paste -sd,))")"
echo "== processes restarted: none (pids ${SVC_PID[api]} ${SVC_PID[worker1]} ${SVC_PID[worker2]} alive: $(for p in "${SVC_PID[@]}"; do kill -0 "$p" && printf y || printf n; done))"
echo "== a job after recovery: $(curl -s -m 70 "${AUTH[@]}" -d '{"language":"python","code":"print(6*7)"}' "$URL/v1/jobs?wait=60" | jq -c '{status, stdout}')"
echo "== 500s or stack traces in the logs: $(grep -c ' 500\|Exception' "$WORK"/api.log "$WORK"/worker*.log | tr '\n' ' ')"
