#!/usr/bin/env bash
# Side-by-side load test of monotable and the local DynamoDB emulators, in one run, on the
# same workloads, with the same client (`monotable bench`) and the same machine.
#
#   bench/peers.sh [--duration 5s] [--warmup 1s] [--workloads "get put update query mixed transact"]
#                  [--wrk-workloads "get put put-new query"]
#                  [--peers "ceiling monotable monotable-disk dynoxide dynoxide-disk dynalite moto"]
#                  [--items 10000] [--item-size 256] [--concurrency 32] [--rounds 1]
#
# Every server is driven by two clients: `monotable bench` (signs every request like an SDK)
# and wrk (an independent load generator from the OS packages, one thread, the same number of
# connections, bench/wrk/dynamodb.lua; installed with apt-get when missing; --wrk-workloads ""
# leaves it out). Before each wrk run the table is re-created and loaded by `monotable bench`.
# For each peer it measures start-up (spawn to first successful ListTables) and idle resident
# memory, then starts every peer on its own loopback port and runs each workload against the
# peers in alternation (workload by workload, peer by peer, repeated --rounds times), and
# finally prints throughput, latency and monotable/peer ratios (bench/report.py).
# Peers are installed under bench/.cache by bench/install-peers.sh; a peer that is missing
# or fails is reported as such, never silently dropped. Every process started here is
# stopped on exit (trap). Traffic goes to 127.0.0.1 only.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CACHE="$ROOT/bench/.cache"
DURATION=5s WARMUP=1s WORKLOADS="get put update query mixed transact" WRK_WORKLOADS="get put put-new query" ITEMS=10000 ITEM_SIZE=256 CONCURRENCY=32 ROUNDS=1
PEERS="ceiling monotable monotable-disk dynoxide dynoxide-disk dynalite moto"
while [ $# -gt 0 ]; do
  case "$1" in
    --duration) DURATION="$2"; shift 2 ;;
    --warmup) WARMUP="$2"; shift 2 ;;
    --workloads) WORKLOADS="$2"; shift 2 ;;
    --peers) PEERS="$2"; shift 2 ;;
    --items) ITEMS="$2"; shift 2 ;;
    --item-size) ITEM_SIZE="$2"; shift 2 ;;
    --concurrency) CONCURRENCY="$2"; shift 2 ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    --wrk-workloads) WRK_WORKLOADS="$2"; shift 2 ;;
    -h|--help) sed -n '2,23p' "$0"; exit 0 ;;
    *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done

mkdir -p "$CACHE"
# One run at a time per checkout: two runs would fight over the CPU and the ports.
exec 9>"$CACHE/peers.lock"
flock -n 9 || { echo "another bench/peers.sh is running (lock $CACHE/peers.lock)" >&2; exit 1; }

RESULTS="$CACHE/results/$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$RESULTS"
ln -sfn "$RESULTS" "$CACHE/results/latest"
log() { echo "[peers $(date -u +%H:%M:%S)] $*" >&2; }

# ---- processes: every pid started here is stopped on exit -------------------------------
declare -A PID=()
DATA_DIR=""
cleanup() {
  for peer in "${!PID[@]}"; do
    kill "${PID[$peer]}" 2>/dev/null || true
    wait "${PID[$peer]}" 2>/dev/null || true
  done
  if [ -n "$DATA_DIR" ]; then rm -rf "$DATA_DIR"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- the client and the peers ------------------------------------------------------------
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
log "building monotable (release) into $CARGO_TARGET_DIR"
(cd "$ROOT" && cargo build --release -q -p monotable-cli)
MONOTABLE="$CARGO_TARGET_DIR/release/monotable"

want() { case " $PEERS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
for p in dynoxide dynalite moto; do
  if want "$p"; then "$ROOT/bench/install-peers.sh" "$p" || log "$p could not be installed: left out"; fi
done

# monotable with a data directory is measured only once `serve` offers one.
if want monotable-disk && ! "$MONOTABLE" serve --help 2>/dev/null | grep -q -- '--data-dir'; then
  log "monotable serve has no --data-dir yet: monotable-disk left out"
  PEERS="${PEERS/monotable-disk/}"
fi
DATA_DIR="$(mktemp -d "$CACHE/data.XXXXXX")"

# Each peer gets the first free loopback port from PORT_BASE (default 18100) on, so that a
# server someone else left on a port is never mistaken for the one measured.
declare -A PORT=()
port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
next_port=${PORT_BASE:-18100}
for peer in $PEERS; do
  while port_in_use "$next_port"; do next_port=$((next_port + 1)); done
  PORT[$peer]=$next_port
  next_port=$((next_port + 1))
done
port_of() { echo "${PORT[$1]}"; }

# The command line that serves peer $1 on port $2 (empty when the peer is not installed).
command_of() {
  local port="$2"
  case "$1" in
    # The ceiling: a fixed `{}` answer on one thread (`monotable bench --serve-ceiling`), the
    # most one server worker reaches on this machine with this client. It coalesces its
    # answers as `monotable serve` does (`--plain-ceiling` turns that off).
    ceiling) echo "$MONOTABLE bench --serve-ceiling $port" ;;
    monotable) echo "$MONOTABLE serve --host 127.0.0.1 --port $port" ;;
    monotable-disk) echo "$MONOTABLE serve --host 127.0.0.1 --port $port --data-dir $DATA_DIR/monotable-$RANDOM" ;;
    dynoxide) if [ -x "$CACHE/cargo/bin/dynoxide" ]; then echo "$CACHE/cargo/bin/dynoxide --host 127.0.0.1 --port $port"; fi ;;
    # dynoxide on a SQLite file, the on-disk counterpart of monotable-disk.
    dynoxide-disk) if [ -x "$CACHE/cargo/bin/dynoxide" ]; then
        echo "$CACHE/cargo/bin/dynoxide --host 127.0.0.1 --port $port --db-path $DATA_DIR/dynoxide-$RANDOM.db"
      fi ;;
    dynalite) if [ -f "$CACHE/npm/node_modules/dynalite/cli.js" ]; then
        echo "node $CACHE/npm/node_modules/dynalite/cli.js --host 127.0.0.1 --port $port --createTableMs 0 --deleteTableMs 0 --updateTableMs 0"
      fi ;;
    moto) if [ -x "$CACHE/venv/bin/moto_server" ]; then echo "$CACHE/venv/bin/moto_server -H 127.0.0.1 -p $port"; fi ;;
  esac
  return 0
}

if [ -n "$WRK_WORKLOADS" ] && ! command -v wrk >/dev/null 2>&1; then
  log "installing wrk (apt-get)"
  { apt-get install -y -qq wrk || { apt-get update -qq && apt-get install -y -qq wrk; }; } >/dev/null 2>&1 \
    || { log "wrk could not be installed: the independent client is left out"; WRK_WORKLOADS=""; }
fi

ACTIVE=()
for peer in $PEERS; do
  if [ -z "$(command_of "$peer" 0)" ]; then log "$peer is not installed: left out"; else ACTIVE+=("$peer"); fi
done
[ ${#ACTIVE[@]} -gt 0 ] || { log "no peer to measure"; exit 1; }

{
  echo "date_utc=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "command=bench/peers.sh --duration $DURATION --warmup $WARMUP --workloads \"$WORKLOADS\" --peers \"${ACTIVE[*]}\" --items $ITEMS --item-size $ITEM_SIZE --concurrency $CONCURRENCY --rounds $ROUNDS"
  echo "cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //') x $(nproc)"
  echo "memory=$(free -g | awk '/Mem:/{print $2}') GiB"
  echo "kernel=$(uname -r)"
  echo "load_before=$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "rustc=$(rustc --version)"
  echo "node=$(node --version 2>/dev/null || echo none)"
  echo "python=$(python3 --version 2>&1)"
  echo "wrk=$(wrk --version 2>&1 | head -n 1 | cut -d' ' -f2)"
  if [ -x "$CACHE/cargo/bin/dynoxide" ]; then echo "dynoxide=$("$CACHE/cargo/bin/dynoxide" --version 2>/dev/null || echo unknown)"; fi
  if [ -f "$CACHE/npm/node_modules/dynalite/package.json" ]; then
    echo "dynalite=$(node -p "require('$CACHE/npm/node_modules/dynalite/package.json').version")"
  fi
  if [ -x "$CACHE/venv/bin/python" ]; then echo "moto=$("$CACHE/venv/bin/python" -c 'import moto; print(moto.__version__)')"; fi
} >"$RESULTS/machine.txt"

# ---- 1. start-up time and idle memory ---------------------------------------------------
for peer in "${ACTIVE[@]}"; do
  port=$(port_of "$peer")
  log "start-up: $peer"
  # shellcheck disable=SC2046
  timeout 120 "$MONOTABLE" bench --endpoint "http://127.0.0.1:$port" --startup --settle 500ms \
    --json "$RESULTS/startup-$peer.json" -- $(command_of "$peer" "$port") >&2 \
    || log "start-up measurement of $peer failed"
done

# ---- 2. start every peer and wait until it answers -------------------------------------
wait_ready() {
  local port="$1" i
  for i in $(seq 1 600); do
    if curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$port/" \
      -H 'Content-Type: application/x-amz-json-1.0' -H 'X-Amz-Target: DynamoDB_20120810.ListTables' \
      -H 'X-Amz-Date: 20200101T000000Z' \
      -H 'Authorization: AWS4-HMAC-SHA256 Credential=AKIDBENCH/20200101/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=00' \
      -d '{}' 2>/dev/null | grep -q 200; then return 0; fi
    sleep 0.1
  done
  return 1
}
for peer in "${ACTIVE[@]}"; do
  port=$(port_of "$peer")
  # shellcheck disable=SC2046
  $(command_of "$peer" "$port") >"$RESULTS/server-$peer.log" 2>&1 &
  PID[$peer]=$!
  wait_ready "$port" || log "$peer did not answer within 60 s (its runs will show errors)"
  kill -0 "${PID[$peer]}" 2>/dev/null || log "$peer exited at start (see $RESULTS/server-$peer.log)"
done

# ---- 3. the workloads, peers in alternation ---------------------------------------------
for round in $(seq 1 "$ROUNDS"); do
  for workload in $WORKLOADS; do
    for peer in "${ACTIVE[@]}"; do
      port=$(port_of "$peer")
      # The ceiling has no table: nothing to set up.
      skip=()
      [ "$peer" = ceiling ] && skip=(--skip-setup)
      log "round $round: $workload on $peer"
      timeout 600 "$MONOTABLE" bench --endpoint "http://127.0.0.1:$port" --workload "$workload" \
        --duration "$DURATION" --warmup "$WARMUP" --items "$ITEMS" --item-size "$ITEM_SIZE" \
        --concurrency "$CONCURRENCY" --threads 1 --server-pid "${PID[$peer]}" "${skip[@]}" \
        --json "$RESULTS/run-$round-$workload-$peer.json" >"$RESULTS/run-$round-$workload-$peer.txt" 2>&1 \
        || log "$workload on $peer failed: $(grep -m1 '^Error' "$RESULTS/run-$round-$workload-$peer.txt" || tail -n 1 "$RESULTS/run-$round-$workload-$peer.txt")"
    done
  done
done

# ---- 3b. the same servers with wrk, the independent client -----------------------------
for round in $(seq 1 "$ROUNDS"); do
  for workload in $WRK_WORKLOADS; do
    for peer in "${ACTIVE[@]}"; do
      port=$(port_of "$peer")
      if [ "$peer" != ceiling ]; then
        timeout 600 "$MONOTABLE" bench --endpoint "http://127.0.0.1:$port" --workload get --requests 1 \
          --items "$ITEMS" --item-size "$ITEM_SIZE" >/dev/null 2>&1 || log "setup for wrk on $peer failed"
      fi
      log "round $round: wrk $workload on $peer"
      WORKLOAD="$workload" ITEMS="$ITEMS" RUN="$round" timeout 600 wrk -t1 -c"$CONCURRENCY" -d"$DURATION" --latency \
        -s "$ROOT/bench/wrk/dynamodb.lua" "http://127.0.0.1:$port" >"$RESULTS/wrk-$round-$workload-$peer.txt" 2>&1 \
        || log "wrk $workload on $peer failed"
    done
  done
done

# ---- 4. memory after load, then the summary ---------------------------------------------
for peer in "${ACTIVE[@]}"; do
  rss=$(awk '/VmRSS:/{print $2}' "/proc/${PID[$peer]}/status" 2>/dev/null || echo "")
  echo "$peer ${rss:-?}" >>"$RESULTS/rss-after-load.txt"
done
echo "load_after=$(cut -d' ' -f1-3 /proc/loadavg)" >>"$RESULTS/machine.txt"
python3 "$ROOT/bench/report.py" "$RESULTS" | tee "$RESULTS/summary.md"
log "results in $RESULTS"
