#!/usr/bin/env bash
# Memory per item, monotable against dynoxide, in one run: each server is started fresh,
# `monotable bench` loads N items (256 B by DynamoDB's size formula, one GSI, the same items
# for every server), and the growth of the server's resident memory over the load, divided by
# N, is its bytes per item.
#
#   bench/memory.sh [--items 1000000] [--servers "monotable monotable-disk dynoxide dynoxide-disk"]
#
# dynoxide comes from bench/install-peers.sh (bench/.cache). Results: a table on stdout and
# bench/.cache/memory/<time>.txt. Traffic goes to 127.0.0.1 only.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
ITEMS=1000000 SERVERS="monotable monotable-disk dynoxide dynoxide-disk"
while [ $# -gt 0 ]; do
  case "$1" in
    --items) ITEMS="$2"; shift 2 ;;
    --servers) SERVERS="$2"; shift 2 ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
(cd "$ROOT" && cargo build --release -q -p monotable-cli)
MONOTABLE="$CARGO_TARGET_DIR/release/monotable"
DYNOXIDE="$ROOT/bench/.cache/cargo/bin/dynoxide"
case " $SERVERS " in *" dynoxide"*) [ -x "$DYNOXIDE" ] || "$ROOT/bench/install-peers.sh" dynoxide || true ;; esac
mkdir -p "$ROOT/bench/.cache/memory"
OUT="$ROOT/bench/.cache/memory/$(date -u +%Y%m%dT%H%M%SZ).txt"
SCRATCH="$(mktemp -d "$ROOT/bench/.cache/memory-data.XXXXXX")"
PID=""
cleanup() {
  if [ -n "$PID" ]; then kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; fi
  rm -rf "$SCRATCH"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

rss() { awk '/VmRSS:/{print $2}' "/proc/$1/status"; }
port=${PORT_BASE:-18400}
printf '| server | items | idle RSS MiB | loaded RSS MiB | growth B/item | load s |\n|---|---:|---:|---:|---:|---:|\n' | tee "$OUT"
for server in $SERVERS; do
  while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
  case "$server" in
    monotable) cmd=("$MONOTABLE" serve --host 127.0.0.1 --port "$port") ;;
    monotable-disk) cmd=("$MONOTABLE" serve --host 127.0.0.1 --port "$port" --data-dir "$SCRATCH/monotable") ;;
    dynoxide) cmd=("$DYNOXIDE" --host 127.0.0.1 --port "$port") ;;
    dynoxide-disk) cmd=("$DYNOXIDE" --host 127.0.0.1 --port "$port" --db-path "$SCRATCH/dynoxide.db") ;;
    *) echo "unknown server $server" >&2; continue ;;
  esac
  if [ ! -x "${cmd[0]}" ]; then echo "| $server | not installed | | | | |" | tee -a "$OUT"; continue; fi
  "${cmd[@]}" >"$SCRATCH/$server.log" 2>&1 &
  PID=$!
  for _ in $(seq 1 300); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
  sleep 0.5
  idle=$(rss "$PID")
  "$MONOTABLE" bench --endpoint "http://127.0.0.1:$port" --items "$ITEMS" --requests 1 \
    --json "$SCRATCH/$server.json" >/dev/null 2>&1 || echo "loading $server failed" >&2
  sleep 2
  loaded=$(rss "$PID")
  secs=$(python3 -c "import json,sys; print(round(json.load(open(sys.argv[1]))['setup']['load_secs'], 1))" "$SCRATCH/$server.json" 2>/dev/null || echo "?")
  awk -v s="$server" -v n="$ITEMS" -v i="$idle" -v l="$loaded" -v t="$secs" \
    'BEGIN { printf "| %s | %d | %.1f | %.1f | %d | %s |\n", s, n, i / 1024, l / 1024, (l - i) * 1024 / n, t }' | tee -a "$OUT"
  kill "$PID"; wait "$PID" 2>/dev/null || true; PID=""
  port=$((port + 1))
done
echo "results in $OUT" >&2
