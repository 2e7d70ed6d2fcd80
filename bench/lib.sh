# Shared by bench/load.sh and bench/faults/*.sh (sourced, not run): a private PostgreSQL, one API
# process and worker processes of the packaged service, all in one temp dir that the EXIT trap
# removes together with every process started here. Needs root, Node >= 20, PostgreSQL 15 binaries
# (PG_BIN), jq, python3, curl and runuser (bench/faults/clock-jump.sh also libfaketime: `faketime`).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
export PATH="$JAVA_HOME/bin:$PATH"
ADMIN_KEY=nx_bench_admin_$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
WORK=$(mktemp -d /tmp/nixexec-bench.XXXXXX)
chmod 755 "$WORK"
declare -A SVC_PID=() SVC_PORT=()
PG_PORT=

log() { printf '%s %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# Postgres refuses to run as root: the cluster belongs to an unprivileged user.
PG_USER=${PG_USER:-postgres}
as_pg() { runuser -u "$PG_USER" -- "$@"; }

cleanup() {
  local rc=$?
  set +e
  for name in "${!SVC_PID[@]}"; do
    kill -TERM "${SVC_PID[$name]}" 2>/dev/null
  done
  for name in "${!SVC_PID[@]}"; do
    for _ in $(seq 50); do kill -0 "${SVC_PID[$name]}" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "${SVC_PID[$name]}" 2>/dev/null
  done
  if [[ -n $PG_PORT && -f $WORK/pg/postmaster.pid ]]; then
    as_pg "$PG_BIN/pg_ctl" -D "$WORK/pg" -m immediate stop >/dev/null 2>&1
  fi
  [[ -n ${KEEP_WORK:-} ]] && log "kept $WORK" || rm -rf "$WORK"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Builds the jar when it is missing or older than a source, so a run never measures stale code.
build_jar() {
  local jar=$REPO/target/quarkus-app/quarkus-run.jar
  if [[ ! -f $jar || -n $(find "$REPO/src/main" "$REPO/migrations" "$REPO/pom.xml" -newer "$jar" -print -quit) ]]; then
    log "building the service (./mvnw -B -o package -DskipTests)"
    (cd "$REPO" && ./mvnw -B -o -q package -DskipTests >&2)
  fi
}

start_pg() {
  PG_PORT=$(free_port)
  mkdir -p "$WORK/pg" "$WORK/pgsock"
  chown "$PG_USER" "$WORK/pg" "$WORK/pgsock"
  as_pg "$PG_BIN/initdb" -D "$WORK/pg" -U postgres -A trust -E UTF8 >/dev/null
  pg_ctl_start
  as_pg "$PG_BIN/createdb" -h 127.0.0.1 -p "$PG_PORT" -U postgres nixexec
  log "postgresql on :$PG_PORT"
}

pg_ctl_start() {
  as_pg "$PG_BIN/pg_ctl" -D "$WORK/pg" -l "$WORK/pgsock/pg.log" -w \
    -o "-p $PG_PORT -k $WORK/pgsock -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=off" start >/dev/null
}

pg_ctl_stop() { as_pg "$PG_BIN/pg_ctl" -D "$WORK/pg" -m "${1:-fast}" -w stop >/dev/null; }

psql_q() { as_pg "$PG_BIN/psql" -h 127.0.0.1 -p "$PG_PORT" -U postgres -d nixexec -Atqc "$1"; }

# start_service NAME ROLE [extra VAR=value ...]: one JVM of the packaged service, log in $WORK/NAME.log
start_service() {
  local name=$1 role=$2; shift 2
  local port=${SVC_PORT[$name]:-$(free_port)}
  SVC_PORT[$name]=$port
  mkdir -p "$WORK/$name"
  chmod 755 "$WORK/$name"
  env NIXEXEC_NODE_ROLE="$role" \
    NIXEXEC_NODE_ID="$name" \
    NIXEXEC_STATE_DIR="$WORK/$name" \
    QUARKUS_HTTP_PORT="$port" \
    QUARKUS_HTTP_HOST=127.0.0.1 \
    NIXEXEC_DB_URL="jdbc:postgresql://127.0.0.1:$PG_PORT/nixexec?user=postgres" \
    NIXEXEC_EXECUTOR_NIXPKGS_URL="path:$REPO/nix/testing/nixpkgs" \
    NIXEXEC_EXECUTOR_SUBSTITUTERS=none \
    NIXEXEC_EXECUTOR_NIX_OPTIONS=sandbox=false \
    NIXEXEC_AUTH_BOOTSTRAP_ADMIN_KEY="$ADMIN_KEY" \
    "$@" \
    java -Xmx${SVC_XMX:-512m} -jar "$REPO/target/quarkus-app/quarkus-run.jar" >>"$WORK/$name.log" 2>&1 &
  SVC_PID[$name]=$!
  log "$name ($role) pid ${SVC_PID[$name]} on :$port"
}

wait_ready() {
  local name=$1 limit=${2:-120}
  for _ in $(seq $((limit * 2))); do
    if curl -fs "http://127.0.0.1:${SVC_PORT[$name]}/q/health/ready" >/dev/null 2>&1; then return 0; fi
    kill -0 "${SVC_PID[$name]}" 2>/dev/null || { tail -30 "$WORK/$name.log" >&2; log "$name died"; return 1; }
    sleep 0.5
  done
  tail -30 "$WORK/$name.log" >&2
  log "$name not ready after ${limit}s"
  return 1
}

api_url() { echo "http://127.0.0.1:${SVC_PORT[api]}"; }

ensure_node_modules() {
  if [[ ! -d $REPO/bench/node_modules/@modelcontextprotocol/sdk ]]; then
    (cd "$REPO/bench" && npm ci --silent --no-audit --no-fund >&2)
  fi
}

# The usual cluster: PostgreSQL, api, worker1, worker2 (extra args go to the workers).
start_cluster() {
  build_jar
  ensure_node_modules
  start_pg
  start_service api api NIXEXEC_JOBS_MAX_QUEUED_PER_TENANT="${MAX_QUEUED_PER_TENANT:-5000}" ${API_ENV:-}
  wait_ready api
  start_service worker1 worker "$@"
  start_service worker2 worker "$@"
  wait_ready worker1
  wait_ready worker2
}
