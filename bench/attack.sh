#!/usr/bin/env bash
# Hostile-input bench (docs/BENCHMARKS.md, "Hostile input"): GetItem latency on 4 connections while one more connection
# sends a hostile request shape in a loop (`monotable bench --attack`), alternating with a run
# without attack, for every shape, three rounds. The server keeps its tables in a fresh data
# directory (the `tombstones` shape costs the most there). Prints one line per run, with the
# server's peak RSS during the run (VmHWM, reset before it) and the load average; the JSON
# reports land in $OUT.
#
#   cargo build --release -p monotable-cli && bench/attack.sh
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${MONOTABLE_BIN:-target/release/monotable}
PORT=${PORT:-18123}
OUT=${OUT:-target/attack}
ROUNDS=${ROUNDS:-3}
SHAPES=${SHAPES:-none string-set-40k string-set-80k unused-values-80k attributes-to-get-80k names-100k wide-item held-bodies slow-bodies gzip-bomb cross-origin costly-condition tombstones}
mkdir -p "$OUT"
rm -rf "$OUT/data"
"$BIN" serve --port "$PORT" --data-dir "$OUT/data" > "$OUT/serve.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$PORT/" > /dev/null && break; sleep 0.1; done
EP=http://127.0.0.1:$PORT
"$BIN" bench --endpoint "$EP" --workload get --concurrency 4 --requests 1000 > /dev/null
for round in $(seq "$ROUNDS"); do
  for shape in $SHAPES; do
    extra=()
    [ "$shape" = none ] || extra=(--attack "$shape")
    report="$OUT/${round}_${shape}"
    echo 5 > "/proc/$SERVER/clear_refs" 2>/dev/null || true
    "$BIN" bench --endpoint "$EP" --workload get --concurrency 4 --duration 8s --skip-setup \
      "${extra[@]}" --json "$report.json" > "$report.txt" 2>&1
    peak=$(awk '/VmHWM/ {print $2 / 1024 " MiB"}' "/proc/$SERVER/status")
    echo "round $round $shape: get µs (min mean p50 p90 p99 p99.9 max) $(grep -A1 'lat µs' "$report.txt" | tail -1) | $(grep '^attack' "$report.txt" || true) | $(grep '^new connections' "$report.txt" || true) | peak RSS $peak | load $(cut -d' ' -f1-3 /proc/loadavg)"
  done
done
