#!/usr/bin/env bash
# Drives a monotable server with the aws CLI: create-table, put-item, query,
# transact-write-items, and a conditional failure.
#
# Usage: aws_cli_smoke.sh http://127.0.0.1:PORT
# The CLI command is taken from $AWS_CLI (default: aws), e.g. AWS_CLI="python3 -m awscli".
# Run by crates/server/tests/real_clients.rs; exits non-zero on the first failed check.
set -euo pipefail

endpoint="$1"
read -r -a cli <<< "${AWS_CLI:-aws}"
ddb() { "${cli[@]}" dynamodb --endpoint-url "$endpoint" --region us-east-1 --output text "$@"; }
fail() { echo "aws CLI smoke test FAILED: $*" >&2; exit 1; }

ddb create-table --table-name cli_orders \
  --attribute-definitions AttributeName=pk,AttributeType=S AttributeName=sk,AttributeType=S \
  --key-schema AttributeName=pk,KeyType=HASH AttributeName=sk,KeyType=RANGE \
  --billing-mode PAY_PER_REQUEST --query 'TableDescription.TableName' > /dev/null

for i in 1 2 3; do
  ddb put-item --table-name cli_orders \
    --item "{\"pk\": {\"S\": \"c1\"}, \"sk\": {\"S\": \"o$i\"}, \"total\": {\"N\": \"$i\"}}"
done

count=$(ddb query --table-name cli_orders --key-condition-expression 'pk = :p' \
  --expression-attribute-values '{":p": {"S": "c1"}}' --query 'Count')
[[ "$count" == "3" ]] || fail "query counted '$count', expected 3"

if out=$(ddb put-item --table-name cli_orders --item '{"pk": {"S": "c1"}, "sk": {"S": "o1"}}' \
  --condition-expression 'attribute_not_exists(pk)' 2>&1); then
  fail "conditional put-item succeeded"
fi
[[ "$out" == *ConditionalCheckFailedException* ]] || fail "unexpected error: $out"

ddb transact-write-items --transact-items '[
  {"Put": {"TableName": "cli_orders", "Item": {"pk": {"S": "c1"}, "sk": {"S": "o4"}, "total": {"N": "4"}}}},
  {"Update": {"TableName": "cli_orders", "Key": {"pk": {"S": "c1"}, "sk": {"S": "o1"}},
              "UpdateExpression": "SET #t = #t + :d", "ExpressionAttributeNames": {"#t": "total"},
              "ExpressionAttributeValues": {":d": {"N": "10"}}}}
]' > /dev/null

total=$(ddb get-item --table-name cli_orders --key '{"pk": {"S": "c1"}, "sk": {"S": "o1"}}' --query 'Item.total.N')
[[ "$total" == "11" ]] || fail "total is '$total', expected 11"
count=$(ddb query --table-name cli_orders --key-condition-expression 'pk = :p' \
  --expression-attribute-values '{":p": {"S": "c1"}}' --query 'Count')
[[ "$count" == "4" ]] || fail "query counted '$count' after the transaction, expected 4"

if out=$(ddb transact-write-items --transact-items '[
  {"ConditionCheck": {"TableName": "cli_orders", "Key": {"pk": {"S": "c1"}, "sk": {"S": "o2"}},
                      "ConditionExpression": "#t = :x", "ExpressionAttributeNames": {"#t": "total"},
                      "ExpressionAttributeValues": {":x": {"N": "99"}}}}
]' 2>&1); then
  fail "failing transaction succeeded"
fi
[[ "$out" == *TransactionCanceledException* ]] || fail "unexpected error: $out"

ddb delete-table --table-name cli_orders --query 'TableDescription.TableName' > /dev/null
echo "aws CLI smoke test: ok"
