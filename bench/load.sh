#!/usr/bin/env bash
# Load run: a private PostgreSQL, one API and two worker processes of the packaged service, then
# bench/load.mjs drives them over REST and MCP at once and writes target/load-report.md.
# Usage: bench/load.sh [JOBS]   (default 2000; develop with ~100). Needs root (the service runs
# sandboxes under per-run uids), Node ≥ 20, PostgreSQL 15 binaries (PG_BIN), nix and bwrap.
source "$(dirname "$0")/lib.sh"
JOBS=${1:-2000}
start_cluster
LOAD_PIDS="api:${SVC_PID[api]},worker1:${SVC_PID[worker1]},worker2:${SVC_PID[worker2]}" \
  node "$REPO/bench/load.mjs" "$(api_url)" "$ADMIN_KEY" "$JOBS" "$REPO/target/load-report.md"
