#!/usr/bin/env bash
# A local cluster: its own redis-server (AOF on) and three bankit
# processes on ports 8001-8003 sharing it. Ctrl-C stops them all.
#   REDIS_PORT (default 6391), PORTS (default "8001 8002 8003"), HOST (default 127.0.0.1),
#   DATA (Redis's AOF and the logs; default $TMPDIR/bankit-cluster)
set -euo pipefail
cd "$(dirname "$0")/.."

REDIS_PORT="${REDIS_PORT:-6391}"
PORTS="${PORTS:-8001 8002 8003}"
HOST="${HOST:-127.0.0.1}"
PYTHON="${PYTHON:-.venv/bin/python}"
DATA="${DATA:-${TMPDIR:-/tmp}/bankit-cluster}"
mkdir -p "$DATA"

command -v redis-server >/dev/null || { echo "redis-server is missing: make system-deps" >&2; exit 1; }
if redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1; then
  echo "port $REDIS_PORT already answers: set REDIS_PORT to a free port" >&2
  exit 1
fi

pids=()
cleanup() {
  trap - INT TERM EXIT
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup INT TERM EXIT

redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save "" --appendonly yes \
  --appendfsync everysec --dir "$DATA" --logfile redis.log &
pids+=($!)
for _ in $(seq 1 100); do redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1 && break; sleep 0.05; done

export REDIS_URL="redis://127.0.0.1:$REDIS_PORT/0"
for port in $PORTS; do
  "$PYTHON" -m app --host "$HOST" --port "$port" >"$DATA/server-$port.log" 2>&1 &
  pids+=($!)
done
for port in $PORTS; do
  "$PYTHON" - "$port" <<'PY'
import sys, time, urllib.request
for _ in range(400):
    try:
        urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/readyz", timeout=1)
        break
    except OSError:
        time.sleep(0.05)
else:
    sys.exit(f"port {sys.argv[1]} did not become ready")
PY
done

echo "redis:   $REDIS_URL (AOF in $DATA/)"
for port in $PORTS; do echo "bankit:  http://$HOST:$port  (logs: $DATA/server-$port.log)"; done
echo "Any process serves any room. Ctrl-C stops everything."
wait
