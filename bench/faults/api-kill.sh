#!/usr/bin/env bash
# Fault: kill -9 of the API process while clients follow job events (GET /v1/jobs/{id}/events).
# The API comes back on the same port; the clients reconnect with Last-Event-ID. Expected: each
# client's followed stdout equals the job's stored stdout, event ids without gaps or repeats.
source "$(dirname "$0")/../lib.sh"
start_cluster
URL=$(api_url); J="node $REPO/bench/faults/jobs.mjs"
# 4 jobs printing a line every 0.5 s for 15 s
$J submit "$URL" "$ADMIN_KEY" 4 '{"language":"python","code":"import time\nfor i in range(30):\n    print(\"line\", i, flush=True)\n    time.sleep(0.5)"}' >"$WORK/submit.jsonl"
jq -r 'select(.ok) | .id' "$WORK/submit.jsonl" >"$WORK/ids"
$J follow "$URL" "$ADMIN_KEY" "$WORK/ids" "$WORK/follow.jsonl" >/dev/null &
follower=$!
sleep 6
log "kill -9 api (pid ${SVC_PID[api]}) while $(wc -l <"$WORK/ids") clients follow"
kill -9 "${SVC_PID[api]}"; wait "${SVC_PID[api]}" 2>/dev/null || true
sleep 3
start_service api api
wait_ready api
log "api back"
wait "$follower"
echo "== outcome per followed job"
jq -r '"\(.id) \(.status) reconnects=\(.reconnects) events=\(.events) gaps=\(.gaps) duplicates=\(.duplicates) followed=\(.followed_stdout_bytes)B stored=\(.stored_stdout_bytes)B same_output=\(.same_output)"' "$WORK/follow.jsonl"
