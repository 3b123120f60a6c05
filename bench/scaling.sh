#!/usr/bin/env bash
# How monotable's cost grows with the data: point operations, Query by partition size, a full
# Scan, load time and memory per item, at several table sizes, in memory and with a data
# directory. This is the regression benchmark for scaling (not a timed test): point operations
# should stay flat from the smallest size to the largest, Scan and load should grow linearly.
#
#   bench/scaling.sh [--sizes "10000 100000 1000000"] [--stores "memory disk"] [--duration 5s]
#                    [--partitions "25 100 1000"] [--query-items 100000] [--concurrency 32]
#
# Per store and size: a fresh `monotable serve` on a free loopback port; `monotable bench` loads
# the items (256 B, one GSI; its load time is the load figure), the server's RSS growth over
# the load divided by the items is the memory per item; GetItem and PutItem (overwrites) run
# for --duration each (throughput and p99); `monotable export --segments 1` scans the whole
# table through the endpoint into a scratch file (items/s, JSON encoding and the file write
# included). Query runs once per partition size on a table of
# --query-items items. Results: bench/.cache/scaling/<time>/ (JSON per run, summary.md).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SIZES="10000 100000 1000000" STORES="memory disk" DURATION=5s PARTITIONS="25 100 1000" QUERY_ITEMS=100000 CONCURRENCY=32
while [ $# -gt 0 ]; do
  case "$1" in
    --sizes) SIZES="$2"; shift 2 ;;
    --stores) STORES="$2"; shift 2 ;;
    --duration) DURATION="$2"; shift 2 ;;
    --partitions) PARTITIONS="$2"; shift 2 ;;
    --query-items) QUERY_ITEMS="$2"; shift 2 ;;
    --concurrency) CONCURRENCY="$2"; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
(cd "$ROOT" && cargo build --release -q -p monotable-cli)
MONOTABLE="$CARGO_TARGET_DIR/release/monotable"
OUT="$ROOT/bench/.cache/scaling/$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$OUT"
log() { echo "[scaling $(date -u +%H:%M:%S)] $*" >&2; }

SERVER="" DATA=""
stop() {
  if [ -n "$SERVER" ]; then kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true; fi
  SERVER=""
  if [ -n "$DATA" ]; then rm -rf "$DATA"; fi
  DATA=""
}
trap stop EXIT
trap 'exit 130' INT TERM

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
rss() { awk '/VmRSS:/{print $2}' "/proc/$1/status"; }

# Starts a server for store $1 and sets SERVER and ENDPOINT.
start() {
  local port=${PORT_BASE:-18300}
  while port_in_use "$port"; do port=$((port + 1)); done
  local args=(serve --host 127.0.0.1 --port "$port")
  if [ "$1" = disk ]; then
    DATA="$(mktemp -d "$ROOT/bench/.cache/scaling-data.XXXXXX")"
    args+=(--data-dir "$DATA")
  fi
  "$MONOTABLE" "${args[@]}" >"$OUT/server.log" 2>&1 &
  SERVER=$!
  ENDPOINT="http://127.0.0.1:$port"
  for _ in $(seq 1 300); do
    curl -s -o /dev/null "$ENDPOINT/" && return 0
    sleep 0.1
  done
  log "server for $1 did not start"; return 1
}

bench() { "$MONOTABLE" bench --endpoint "$ENDPOINT" --concurrency "$CONCURRENCY" --threads 1 "$@"; }

echo "date_utc=$(date -u +%Y-%m-%dT%H:%M:%SZ) load_before=$(cut -d' ' -f1-3 /proc/loadavg) cpus=$(nproc)" >"$OUT/machine.txt"
for store in $STORES; do
  for n in $SIZES; do
    log "$store, $n items: load"
    start "$store"
    idle=$(rss "$SERVER")
    bench --workload get --items "$n" --requests 1 --json "$OUT/load-$store-$n.json" >/dev/null 2>&1
    sleep 1
    echo "{\"idle_kib\": $idle, \"loaded_kib\": $(rss "$SERVER")}" >"$OUT/rss-$store-$n.json"
    for w in get put; do
      log "$store, $n items: $w"
      bench --workload "$w" --items "$n" --skip-setup --duration "$DURATION" --warmup 1s \
        --json "$OUT/$w-$store-$n.json" >/dev/null 2>&1 || log "$w failed"
    done
    log "$store, $n items: scan (export, one segment)"
    # An export from an endpoint goes to a file (it is resumable); the file is removed after.
    start_ns=$(date +%s%N)
    if "$MONOTABLE" export --endpoint "$ENDPOINT" --table monotable-bench --segments 1 -o "$OUT/scan.jsonl" \
      --definition "$OUT/definition.json" >"$OUT/scan-$store-$n.log" 2>&1; then
      echo "{\"items\": $n, \"secs\": $(( ($(date +%s%N) - start_ns) / 1000000 ))e-3}" >"$OUT/scan-$store-$n.json"
    else
      log "scan failed (see $OUT/scan-$store-$n.log)"
    fi
    rm -rf "$OUT/scan.jsonl" "$OUT"/*.checkpoint "$OUT/scan.jsonl.checkpoint"
    stop
  done
  for p in $PARTITIONS; do
    log "$store: query, partitions of $p items"
    start "$store"
    bench --workload query --items "$QUERY_ITEMS" --partition-size "$p" --duration "$DURATION" --warmup 1s \
      --json "$OUT/query-$store-$p.json" >/dev/null 2>&1 || log "query failed"
    stop
  done
done
echo "load_after=$(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/machine.txt"

python3 - "$OUT" "$SIZES" "$STORES" "$PARTITIONS" <<'EOF' | tee "$OUT/summary.md"
import json, os, sys
out, sizes, stores, parts = sys.argv[1], sys.argv[2].split(), sys.argv[3].split(), sys.argv[4].split()
def j(name):
    try:
        return json.load(open(os.path.join(out, name)))
    except (OSError, ValueError):
        return None
def f(v, d=0):
    return "–" if v is None else f"{v:,.{d}f}"
print(open(os.path.join(out, "machine.txt")).read().strip().replace("\n", "; "))
print()
print("| store | items | load s | load items/s | RSS growth B/item | GetItem ok/s | p99 µs | PutItem ok/s | p99 µs | Scan items/s |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for s in stores:
    for n in sizes:
        load, rss, g, p, sc = (j(f"{k}-{s}-{n}.json") for k in ("load", "rss", "get", "put", "scan"))
        secs = load and load["setup"] and load["setup"]["load_secs"]
        per = rss and (rss["loaded_kib"] - rss["idle_kib"]) * 1024 / int(n)
        print(f"| {s} | {int(n):,} | {f(secs, 1)} | {f(secs and int(n) / secs)} | {f(per)} | "
              f"{f(g and g['throughput_per_sec'])} | {f(g and g['latency_us']['p99'])} | "
              f"{f(p and p['throughput_per_sec'])} | {f(p and p['latency_us']['p99'])} | "
              f"{f(sc and sc['items'] / sc['secs'] if sc and sc['secs'] else None)} |")
print()
print("| store | items per partition (Query returns) | Query ok/s | items/s | p99 µs |")
print("|---|---:|---:|---:|---:|")
for s in stores:
    for p in parts:
        q = j(f"query-{s}-{p}.json")
        print(f"| {s} | {p} | {f(q and q['throughput_per_sec'])} | {f(q and q['throughput_per_sec'] * int(p))} | "
              f"{f(q and q['latency_us']['p99'])} |")
EOF
log "results in $OUT"
