#!/usr/bin/env bash
# Fault: `nix` failing, then hanging, during environment builds. The workers' nix
# (nixexec.executor.nix-command) is a wrapper whose behaviour a file switches: pass, fail, hang.
# Expected: a job needing a new environment ends `error` with a clear code (failing nix: a build
# error naming the cause; hanging nix: build_timeout after nixexec.executor.build-timeout, the
# hung process killed); jobs whose environment is cached keep running; when nix works again, so
# does the job. Readiness is reported as observed.
source "$(dirname "$0")/../lib.sh"
mkdir -p "$WORK/nixwrap"
echo pass >"$WORK/nixwrap/mode"
cat >"$WORK/nixwrap/nix" <<WRAP
#!/bin/sh
case "\$(cat $WORK/nixwrap/mode)" in
  fail) echo "error: simulated nix failure (bench/faults/nix-broken.sh)" >&2; exit 1 ;;
  hang) sleep 3601 & echo \$! >>$WORK/nixwrap/hung.pids; wait ;;
esac
exec /usr/bin/nix "\$@"
WRAP
chmod 755 "$WORK/nixwrap" "$WORK/nixwrap/nix"
start_cluster NIXEXEC_EXECUTOR_NIX_COMMAND="$WORK/nixwrap/nix" NIXEXEC_EXECUTOR_BUILD_TIMEOUT=15s
URL=$(api_url); J="node $REPO/bench/faults/jobs.mjs"
PLAIN='{"language":"python","code":"print(6*7)"}'
# readiness_within SECONDS CODE: how long until a worker's readiness answers CODE (503 or 200)
readiness_within() {
  local t0=$SECONDS code
  while ((SECONDS - t0 < $1)); do
    for n in worker1 worker2; do
      code=$(curl -s -o /dev/null -w '%{http_code}' -m 5 "http://127.0.0.1:${SVC_PORT[$n]}/q/health/ready")
      if [ "$code" = "$2" ]; then echo "== readiness: $n answered $2 $((SECONDS - t0)) s after the change"; return; fi
    done
    sleep 1
  done
  echo "== readiness: no worker answered $2 within $1 s"
}
ready() { for n in worker1 worker2; do printf '%s=%s ' "$n" "$(curl -s -o /dev/null -w '%{http_code}' -m 5 "http://127.0.0.1:${SVC_PORT[$n]}/q/health/ready")"; done; }
phase() { # phase NAME: submit the given jobs, wait, print outcomes
  local name=$1; shift
  : >"$WORK/$name.jsonl"
  while (($#)); do $J submit "$URL" "$ADMIN_KEY" "$1" "$2" >>"$WORK/$name.jsonl"; shift 2; done
  jq -r 'select(.ok) | .id' "$WORK/$name.jsonl" >"$WORK/$name.ids"
  local started=$SECONDS
  $J wait "$URL" "$ADMIN_KEY" "$WORK/$name.ids" 120 >"$WORK/$name.result"
  echo "== $name ($((SECONDS - started)) s; readiness after: $(ready))"
  jq -r '[.status, (.error // "-"), .node_id, (.stderr // "" | gsub("\n"; " ") | .[0:160])] | join(" | ")' "$WORK/$name.result" | sort | uniq -c
}
phase warm-up 8 "$PLAIN"
echo fail >"$WORK/nixwrap/mode"
log "nix now fails"
readiness_within 20 503
phase nix-fails 2 '{"language":"python","code":"import tinypkg2","packages":["python3Packages.tinypkg2"]}' 6 "$PLAIN"
curl -s -H "Authorization: Bearer $ADMIN_KEY" "$URL/v1/jobs?limit=200" | jq -r '.items[] | select(.error) | .error.message' | sort -u | head -3
echo hang >"$WORK/nixwrap/mode"
log "nix now hangs"
readiness_within 30 503
phase nix-hangs 1 '{"language":"python","code":"import tinypkg","packages":["python3Packages.tinypkg","python3Packages.tinypkg2"]}' 6 "$PLAIN"
sleep 2
alive=0; for p in $(cat "$WORK/nixwrap/hung.pids" 2>/dev/null); do kill -0 "$p" 2>/dev/null && alive=$((alive + 1)); done
echo "== hung nix processes (the wrapper's sleep) left after the build timeout: $alive of $(wc -l <"$WORK/nixwrap/hung.pids" 2>/dev/null || echo 0)"
echo pass >"$WORK/nixwrap/mode"
log "nix works again"
readiness_within 30 200
phase nix-back 1 '{"language":"python","code":"import tinypkg2; print(tinypkg2.hello())","packages":["python3Packages.tinypkg2"]}'
for p in $(cat "$WORK/nixwrap/hung.pids" 2>/dev/null); do kill "$p" 2>/dev/null || true; done
