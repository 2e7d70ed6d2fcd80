#!/usr/bin/env bash
# Fault: jobs that fill their /workspace and /tmp (and one that writes one huge file). Expected:
# the writer gets ENOSPC (or EFBIG) inside the sandbox and the job ends failed with that message;
# the worker's state directory is untouched, readiness stays UP, other jobs run normally.
source "$(dirname "$0")/../lib.sh"
start_cluster
URL=$(api_url); J="node $REPO/bench/faults/jobs.mjs"
# files of 60 MiB each: under RLIMIT_FSIZE (100 MiB), so the filesystem's size is what stops the writer
fill() { printf '{"language":"bash","code":"for i in 1 2 3 4 5 6; do dd if=/dev/zero of=%s$i bs=1M count=60 status=none || { echo stopped at file $i; df -h %s | tail -1; exit 1; }; done; echo all written"}' "$1" "$(dirname "$1")"; }
big() { printf '{"language":"bash","code":"dd if=/dev/zero of=/workspace/big bs=1M count=200 status=none; echo dd rc=$?; exit 1"}'; }
before=$(du -sm "$WORK/worker1" "$WORK/worker2" | awk '{s+=$1} END {print s}')
: >"$WORK/submit.jsonl"
$J submit "$URL" "$ADMIN_KEY" 2 "$(fill /workspace/fill)" >>"$WORK/submit.jsonl"
$J submit "$URL" "$ADMIN_KEY" 2 "$(fill /tmp/fill)" >>"$WORK/submit.jsonl"
$J submit "$URL" "$ADMIN_KEY" 1 "$(big)" >>"$WORK/submit.jsonl"
$J submit "$URL" "$ADMIN_KEY" 1 '{"language":"python","code":"import os\nn=0\ntry:\n    for i in range(100000):\n        open(f\"/workspace/f{i}\",\"w\").close(); n+=1\nexcept OSError as e:\n    print(\"stopped after\", n, \"files:\", e)\n    raise SystemExit(1)\nprint(\"made\", n, \"files\")"}' >>"$WORK/submit.jsonl"
$J submit "$URL" "$ADMIN_KEY" 10 '{"language":"python","code":"print(6*7)"}' >>"$WORK/submit.jsonl"
jq -r 'select(.ok) | .id' "$WORK/submit.jsonl" >"$WORK/ids"
$J wait "$URL" "$ADMIN_KEY" "$WORK/ids" 180 >"$WORK/result.jsonl"
after=$(du -sm "$WORK/worker1" "$WORK/worker2" | awk '{s+=$1} END {print s}')
echo "== outcomes"
ids=$(cat "$WORK/ids")
for id in $ids; do
  curl -s -H "Authorization: Bearer $ADMIN_KEY" "$URL/v1/jobs/$id" \
    | jq -r '[.status, (.exit_code|tostring), (.limit_hit // "-"), ((.stdout + .stderr) | gsub("\n"; " ") | .[0:150])] | join(" | ")'
done | sort | uniq -c
echo "== state dirs of the workers: ${before} MiB before, ${after} MiB after"
echo "== readiness: $(for n in api worker1 worker2; do printf '%s=%s ' "$n" "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:${SVC_PORT[$n]}/q/health/ready")"; done)"
