#!/usr/bin/env bash
# The cluster of docker-compose.yml, natively: on this machine's Redis and PostgreSQL, the
# migration, then a cpu worker, a gpu worker, the nightly scheduler, the drop-folder watcher,
# Flower (basic auth) and the metrics endpoint, each logging to $LOGS/NAME.log.
#
#   CLAUSEMILL_FLOWER_BASIC_AUTH=ops:long-random-secret CLAUSEMILL_NIGHTLY_PATHS=/srv/contracts ops/cluster.sh [INBOX] [OUTBOX]
#
# Ctrl-C or SIGTERM stops every process (workers finish their current tasks); if one of them
# exits on its own, the others are stopped too and the script exits 1.  Settings come from the
# environment (CLAUSEMILL_*), with the local services as defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
CLAUSEMILL=${CLAUSEMILL:-.venv/bin/clausemill}
export CLAUSEMILL_BROKER_URL=${CLAUSEMILL_BROKER_URL:-redis://127.0.0.1:6379/0}
export CLAUSEMILL_RESULT_BACKEND=${CLAUSEMILL_RESULT_BACKEND:-redis://127.0.0.1:6379/1}
export CLAUSEMILL_DATABASE_URL=${CLAUSEMILL_DATABASE_URL:-postgresql+psycopg2://postgres@127.0.0.1:5432/clausemill}
: "${CLAUSEMILL_FLOWER_BASIC_AUTH:?set CLAUSEMILL_FLOWER_BASIC_AUTH=user:password (Flower is never served without auth)}"
: "${CLAUSEMILL_NIGHTLY_PATHS:?set CLAUSEMILL_NIGHTLY_PATHS to the contract folders the scheduler audits each night (separated by :)}"
INBOX=${1:-inbox}
OUTBOX=${2:-outbox}
LOGS=${CLAUSEMILL_CLUSTER_LOGS:-out/cluster}
mkdir -p "$INBOX" "$OUTBOX" "$LOGS"

# The default database is created if missing; any other URL must name an existing database.
if [ "$CLAUSEMILL_DATABASE_URL" = "postgresql+psycopg2://postgres@127.0.0.1:5432/clausemill" ]; then
  psql -h 127.0.0.1 -U postgres -tAc "SELECT 1 FROM pg_database WHERE datname = 'clausemill'" | grep -q 1 \
    || createdb -h 127.0.0.1 -U postgres clausemill
fi
"$CLAUSEMILL" migrate

pids=()
stop() {
  trap - INT TERM EXIT
  kill -TERM "${pids[@]}" 2>/dev/null || true
  wait "${pids[@]}" 2>/dev/null || true
}
trap 'stop; exit 130' INT
trap 'stop; exit 143' TERM
trap stop EXIT

start() {
  local name=$1
  shift
  "$CLAUSEMILL" "$@" >>"$LOGS/$name.log" 2>&1 &
  pids+=("$!")
  echo "$name: pid $! ($CLAUSEMILL $*; log $LOGS/$name.log)"
}
start cpu-worker worker --queues cpu --hostname "cpu@%h"
start gpu-worker worker --queues gpu --hostname "gpu@%h"
start scheduler scheduler
start watcher watch "$INBOX" --out "$OUTBOX"
start flower flower --port "${FLOWER_PORT:-5555}"
start metrics metrics --port "${METRICS_PORT:-9808}"

wait -n "${pids[@]}" || true
echo "a cluster process exited on its own; stopping the others (see $LOGS/)" >&2
exit 1
