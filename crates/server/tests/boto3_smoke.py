"""Drives a monotable server with boto3: create-table (with a GSI), put-item, query,
transact-write-items, and the typed errors boto3 users catch.

Usage: python3 boto3_smoke.py http://127.0.0.1:PORT
Run by crates/server/tests/real_clients.rs; exits non-zero on the first failed check.
"""

import sys

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError


def main(endpoint):
    connection = {
        "endpoint_url": endpoint,
        "region_name": "us-east-1",
        "aws_access_key_id": "local",
        "aws_secret_access_key": "local",
        "config": Config(retries={"max_attempts": 1}),
    }
    client = boto3.client("dynamodb", **connection)

    client.create_table(
        TableName="music",
        AttributeDefinitions=[
            {"AttributeName": "artist", "AttributeType": "S"},
            {"AttributeName": "song", "AttributeType": "S"},
            {"AttributeName": "genre", "AttributeType": "S"},
        ],
        KeySchema=[
            {"AttributeName": "artist", "KeyType": "HASH"},
            {"AttributeName": "song", "KeyType": "RANGE"},
        ],
        GlobalSecondaryIndexes=[
            {
                "IndexName": "by_genre",
                "KeySchema": [
                    {"AttributeName": "genre", "KeyType": "HASH"},
                    {"AttributeName": "song", "KeyType": "RANGE"},
                ],
                "Projection": {"ProjectionType": "ALL"},
            }
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    client.get_waiter("table_exists").wait(TableName="music", WaiterConfig={"Delay": 1, "MaxAttempts": 5})
    assert client.list_tables()["TableNames"] == ["music"]

    songs = [("Alpha", "One", "rock"), ("Alpha", "Two", "jazz"), ("Alpha", "Three", "rock"), ("Beta", "Four", "rock")]
    for artist, song, genre in songs:
        client.put_item(
            TableName="music",
            Item={"artist": {"S": artist}, "song": {"S": song}, "genre": {"S": genre}, "plays": {"N": "0"}},
        )

    try:
        client.put_item(
            TableName="music",
            Item={"artist": {"S": "Alpha"}, "song": {"S": "One"}},
            ConditionExpression="attribute_not_exists(artist)",
        )
        raise AssertionError("conditional put should have failed")
    except client.exceptions.ConditionalCheckFailedException as e:
        assert e.response["Error"]["Code"] == "ConditionalCheckFailedException", e.response

    result = client.query(
        TableName="music",
        KeyConditionExpression="artist = :a",
        ExpressionAttributeValues={":a": {"S": "Alpha"}},
    )
    assert result["Count"] == 3, result
    assert [i["song"]["S"] for i in result["Items"]] == ["One", "Three", "Two"], result

    by_genre = client.query(
        TableName="music",
        IndexName="by_genre",
        KeyConditionExpression="genre = :g",
        ExpressionAttributeValues={":g": {"S": "rock"}},
    )
    assert by_genre["Count"] == 3, by_genre

    pages = client.get_paginator("query").paginate(
        TableName="music",
        KeyConditionExpression="artist = :a",
        ExpressionAttributeValues={":a": {"S": "Alpha"}},
        PaginationConfig={"PageSize": 1},
    )
    assert sum(len(p["Items"]) for p in pages) == 3

    client.transact_write_items(
        TransactItems=[
            {"Put": {"TableName": "music", "Item": {"artist": {"S": "Gamma"}, "song": {"S": "Five"}, "genre": {"S": "pop"}}}},
            {
                "Update": {
                    "TableName": "music",
                    "Key": {"artist": {"S": "Alpha"}, "song": {"S": "One"}},
                    "UpdateExpression": "SET plays = plays + :one",
                    "ExpressionAttributeValues": {":one": {"N": "1"}},
                }
            },
        ]
    )
    item = client.get_item(TableName="music", Key={"artist": {"S": "Alpha"}, "song": {"S": "One"}})["Item"]
    assert item["plays"] == {"N": "1"}, item

    try:
        client.transact_write_items(
            TransactItems=[
                {"Put": {"TableName": "music", "Item": {"artist": {"S": "Delta"}, "song": {"S": "Six"}}}},
                {
                    "ConditionCheck": {
                        "TableName": "music",
                        "Key": {"artist": {"S": "Alpha"}, "song": {"S": "One"}},
                        "ConditionExpression": "plays = :ten",
                        "ExpressionAttributeValues": {":ten": {"N": "10"}},
                    }
                },
            ]
        )
        raise AssertionError("transaction should have been cancelled")
    except client.exceptions.TransactionCanceledException as e:
        codes = [r["Code"] for r in e.response["CancellationReasons"]]
        assert codes == ["None", "ConditionalCheckFailed"], e.response

    try:
        client.describe_table(TableName="nope")
        raise AssertionError("describe of a missing table should fail")
    except client.exceptions.ResourceNotFoundException:
        pass

    try:
        client.put_item(TableName="music", Item={"artist": {"S": "only-hash"}})
        raise AssertionError("a missing sort key should be refused")
    except ClientError as e:
        assert e.response["Error"]["Code"] == "ValidationException", e.response

    table = boto3.resource("dynamodb", **connection).Table("music")
    assert table.get_item(Key={"artist": "Gamma", "song": "Five"})["Item"]["genre"] == "pop"
    assert table.scan()["Count"] == 5

    client.delete_table(TableName="music")
    print("boto3 smoke test: ok")


if __name__ == "__main__":
    main(sys.argv[1])
