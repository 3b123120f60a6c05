#!/usr/bin/env bash
# Throughput of `monotable export / import / copy` against the aws CLI doing the same the way a
# team would script it, in one run, on one machine, against the same two `monotable serve`
# endpoints (source and target, 127.0.0.1 only):
#
#   bench/transfer.sh [--items 4000] [--runs 3] [--segments 4] [--monotable PATH]
#
#   export: monotable export --endpoint SRC --table T --output F     vs  aws dynamodb scan --table-name T > F
#   import: monotable import --endpoint DST --table T F           vs  a loop of aws dynamodb batch-write-item,
#           (table created beforehand, the same for both)             one call per 25 items, from request files
#                                                                     prepared before the clock starts
#   copy:   monotable copy --from SRC/T --to DST/T                vs  scan, split into 25-item request files
#                                                                     (python), then the batch-write-item loop
#
# Each case runs --runs times, alternating tools; the median items/s of each is printed with
# the ratio monotable/aws. Every process started here is stopped on exit.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
ITEMS=4000 RUNS=3 SEGMENTS=4 MT=""
while [ $# -gt 0 ]; do
  case "$1" in
    --items) ITEMS="$2"; shift 2 ;;
    --runs) RUNS="$2"; shift 2 ;;
    --segments) SEGMENTS="$2"; shift 2 ;;
    --monotable) MT="$2"; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
if [ -z "$MT" ]; then
  (cd "$ROOT" && cargo build -q --release -p monotable-cli)
  MT="${CARGO_TARGET_DIR:-$ROOT/target}/release/monotable"
fi
AWS=(aws)
command -v aws >/dev/null 2>&1 || AWS=(python3 -m awscli)
export AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local AWS_DEFAULT_REGION=us-east-1 AWS_PAGER=""
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

serve() { # name -> prints the endpoint
  "$MT" serve --port 0 > "$work/$1.out" 2>/dev/null &
  pids+=($!)
  for _ in $(seq 1 100); do grep -q 'http://' "$work/$1.out" 2>/dev/null && break; sleep 0.1; done
}
serve src
serve dst
SRC=$(grep -o 'http://[0-9.:]*' "$work/src.out" | head -n 1)
DST=$(grep -o 'http://[0-9.:]*' "$work/dst.out" | head -n 1)

python3 - "$work" "$ITEMS" <<'PY'
import json, sys, os
work, n = sys.argv[1], int(sys.argv[2])
items = []
for i in range(n):
    items.append({"pk": {"S": f"order-{i:07d}"}, "customer": {"S": f"customer-{i % 500}"},
                  "total": {"N": f"{i * 7 % 10000}.99"}, "status": {"S": ["open", "paid", "shipped"][i % 3]},
                  "lines": {"L": [{"M": {"sku": {"S": f"sku-{i % 91}"}, "qty": {"N": str(1 + i % 4)}}}]},
                  "tags": {"SS": ["web", f"t{i % 5}"]}, "note": {"S": "x" * 120}})
with open(f"{work}/items.jsonl", "w") as f:
    for it in items:
        f.write(json.dumps({"Item": it}, sort_keys=True, separators=(",", ":")) + "\n")
os.makedirs(f"{work}/batches")
for k in range(0, n, 25):
    with open(f"{work}/batches/{k // 25:06d}.json", "w") as f:
        json.dump({"Orders": [{"PutRequest": {"Item": it}} for it in items[k:k + 25]]}, f)
json.dump({"Format": "monotable-table-definition/1", "CreateTable": {"TableName": "Orders",
    "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
    "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}], "BillingMode": "PAY_PER_REQUEST"}},
    open(f"{work}/Orders.table.json", "w"))
PY
cd "$work"
"$MT" import --endpoint "$SRC" items.jsonl --definition Orders.table.json 2>/dev/null

fresh_target() { # table: delete (if there) and create it empty on DST
  "${AWS[@]}" dynamodb delete-table --endpoint-url "$DST" --table-name "$1" >/dev/null 2>&1 || true
  "${AWS[@]}" dynamodb create-table --endpoint-url "$DST" --table-name "$1" --billing-mode PAY_PER_REQUEST \
    --attribute-definitions AttributeName=pk,AttributeType=S --key-schema AttributeName=pk,KeyType=HASH >/dev/null
}
batch_loop() { # table dir
  for f in "$2"/*.json; do
    "${AWS[@]}" dynamodb batch-write-item --endpoint-url "$DST" --request-items "file://$f" >/dev/null
  done
}
count() { "${AWS[@]}" dynamodb scan --endpoint-url "$DST" --table-name "$1" --select COUNT --query Count --output text; }
now() { date +%s.%N; }
rate() { python3 -c "print(round($ITEMS / ($2 - $1)))"; }

declare -A results
for run in $(seq 1 "$RUNS"); do
  # export
  t0=$(now); "$MT" export --endpoint "$SRC" --table Orders --output mt.jsonl --definition mt.table.json --segments "$SEGMENTS" 2>/dev/null; t1=$(now)
  results[export_mt]+="$(rate "$t0" "$t1") "
  t0=$(now); "${AWS[@]}" dynamodb scan --endpoint-url "$SRC" --table-name Orders --output json > aws-scan.json; t1=$(now)
  results[export_aws]+="$(rate "$t0" "$t1") "
  # import (the table is created empty beforehand, outside the clock, for both)
  fresh_target Orders
  t0=$(now); "$MT" import --endpoint "$DST" --table Orders items.jsonl --segments "$SEGMENTS" 2>/dev/null; t1=$(now)
  results[import_mt]+="$(rate "$t0" "$t1") "; [ "$(count Orders)" = "$ITEMS" ] || { echo "monotable import wrote $(count Orders) items" >&2; exit 1; }
  fresh_target Orders
  t0=$(now); batch_loop Orders batches; t1=$(now)
  results[import_aws]+="$(rate "$t0" "$t1") "; [ "$(count Orders)" = "$ITEMS" ] || { echo "aws import wrote $(count Orders) items" >&2; exit 1; }
  # copy
  fresh_target Orders
  t0=$(now); "$MT" copy --from "$SRC/Orders" --to "$DST/Orders" --segments "$SEGMENTS" --checkpoint cp 2>/dev/null; t1=$(now)
  results[copy_mt]+="$(rate "$t0" "$t1") "; [ "$(count Orders)" = "$ITEMS" ] || { echo "monotable copy wrote $(count Orders) items" >&2; exit 1; }
  fresh_target Orders
  t0=$(now)
  rm -rf copy-batches && mkdir copy-batches
  "${AWS[@]}" dynamodb scan --endpoint-url "$SRC" --table-name Orders --output json > copy-scan.json
  python3 -c '
import json, sys
items = json.load(open("copy-scan.json"))["Items"]
for k in range(0, len(items), 25):
    json.dump({"Orders": [{"PutRequest": {"Item": it}} for it in items[k:k + 25]]}, open(f"copy-batches/{k // 25:06d}.json", "w"))'
  batch_loop Orders copy-batches
  t1=$(now)
  results[copy_aws]+="$(rate "$t0" "$t1") "; [ "$(count Orders)" = "$ITEMS" ] || { echo "aws copy wrote $(count Orders) items" >&2; exit 1; }
done

median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
printf '%-8s %22s %22s %8s\n' case "monotable items/s" "aws CLI items/s" ratio
for c in export import copy; do
  m=$(echo "${results[${c}_mt]}" | median); a=$(echo "${results[${c}_aws]}" | median)
  printf '%-8s %22s %22s %7sx\n' "$c" "$m (${results[${c}_mt]% })" "$a (${results[${c}_aws]% })" "$(python3 -c "print(round($m / $a, 1))")"
done
echo "items: $ITEMS per run, runs: $RUNS, segments: $SEGMENTS; $("${AWS[@]}" --version 2>&1 | cut -d' ' -f1); $("$MT" --version)"
