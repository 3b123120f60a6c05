#!/bin/bash
# Server-side instructions per request, measured with callgrind (deterministic, unlike
# wall-clock figures on a shared machine).
#
#   bench/callgrind.sh LABEL WORKLOAD [memory|disk] [REQUESTS]
#   BIN=target/release/monotable bench/callgrind.sh base get memory 2000
#
# Starts `monotable serve` (release build; BIN) under `valgrind --tool=callgrind
# --instr-atstart=no`, loads 2,000 items with `monotable bench` and 200 warm-up requests,
# switches instrumentation on, sends REQUESTS requests of WORKLOAD on one connection, switches
# it off, dumps, and prints the instructions per request. The profile stays in
# $OUT_DIR/cg.LABEL.WORKLOAD.STORE.out.1 for `callgrind_annotate --inclusive=yes`.
set -u
LABEL=$1; WL=$2; STORE=${3:-memory}; N=${4:-2000}
BIN=${BIN:-target/release/monotable}
OUT_DIR=${OUT_DIR:-/tmp}
PORT=$((20000 + RANDOM % 20000))
OUT=$OUT_DIR/cg.$LABEL.$WL.$STORE
rm -rf "$OUT.dir" "$OUT".out*
ARGS="--port $PORT --console off"
if [ "$STORE" = disk ]; then mkdir -p "$OUT.dir"; ARGS="$ARGS --data-dir $OUT.dir"; fi
valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$OUT.out" "$BIN" serve $ARGS >"$OUT.log" 2>&1 &
VPID=$!
for _ in $(seq 100); do curl -s "http://127.0.0.1:$PORT/" >/dev/null && break; sleep 0.5; done
E=http://127.0.0.1:$PORT
"$BIN" bench --endpoint "$E" --workload "$WL" --items 2000 --requests 200 --concurrency 1 >/dev/null 2>&1
callgrind_control -i on $VPID >/dev/null
"$BIN" bench --endpoint "$E" --workload "$WL" --items 2000 --requests "$N" --concurrency 1 --skip-setup >"$OUT.bench" 2>&1
callgrind_control -i off $VPID >/dev/null
callgrind_control -d $VPID >/dev/null
sleep 1
kill $VPID; wait $VPID 2>/dev/null
F=$(ls "$OUT".out.* | sort -V | head -1)
IR=$(callgrind_annotate "$F" 2>/dev/null | grep -m1 "PROGRAM TOTALS" | awk '{gsub(",","",$1); print $1}')
echo "$LABEL $WL $STORE requests=$N instructions=$IR per_request=$((IR / N)) profile=$F"
