"""Drives a monotable server with boto3: create-table (with a GSI), put-item, query,
transact-write-items, the typed errors boto3 users catch, PartiQL (ExecuteStatement with
parameters, BatchExecuteStatement, ExecuteTransaction) and DynamoDB Streams through boto3's
dynamodbstreams client on the same endpoint.

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

    partiql_smoke(client)
    streams_smoke(client, boto3.client("dynamodbstreams", **connection))

    client.delete_table(TableName="music")
    print("boto3 smoke test: ok")


def partiql_smoke(client):
    """PartiQL as boto3 sends it: `?` parameters as typed values, per-statement batch errors,
    transactions and their cancellation reasons (API_ExecuteStatement, API_BatchExecuteStatement,
    API_ExecuteTransaction; DuplicateItemException from ql-reference.insert.html)."""
    insert = "INSERT INTO music VALUE {'artist': ?, 'song': ?, 'genre': ?, 'plays': ?}"
    params = [{"S": "Epsilon"}, {"S": "Seven"}, {"S": "folk"}, {"N": "0"}]
    assert client.execute_statement(Statement=insert, Parameters=params)["Items"] == []
    try:
        client.execute_statement(Statement=insert, Parameters=params)
        raise AssertionError("a second INSERT of the key should be refused")
    except client.exceptions.DuplicateItemException as e:
        assert e.response["Error"]["Message"] == "Duplicate primary key exists in table", e.response

    got = client.execute_statement(
        Statement="SELECT genre, plays FROM music WHERE artist = ? AND song = ?",
        Parameters=[{"S": "Epsilon"}, {"S": "Seven"}],
    )["Items"]
    assert got == [{"genre": {"S": "folk"}, "plays": {"N": "0"}}], got
    songs = client.execute_statement(Statement="SELECT song FROM music WHERE artist = ?", Parameters=[{"S": "Alpha"}])
    assert [i["song"]["S"] for i in songs["Items"]] == ["One", "Three", "Two"], songs
    rock = client.execute_statement(Statement='SELECT * FROM "music"."by_genre" WHERE genre = ?', Parameters=[{"S": "rock"}])
    assert len(rock["Items"]) == 3, rock

    batch = client.batch_execute_statement(
        Statements=[
            {"Statement": "INSERT INTO music VALUE {'artist': ?, 'song': ?}", "Parameters": [{"S": "Zeta"}, {"S": "Eight"}]},
            {"Statement": "INSERT INTO music VALUE {'artist': ?, 'song': ?}", "Parameters": [{"S": "Epsilon"}, {"S": "Seven"}]},
        ]
    )["Responses"]
    assert "Error" not in batch[0], batch
    assert batch[1]["Error"]["Code"] == "DuplicateItem", batch
    reads = client.batch_execute_statement(
        Statements=[
            {"Statement": "SELECT * FROM music WHERE artist = ? AND song = ?", "Parameters": [{"S": "Zeta"}, {"S": "Eight"}]},
            {"Statement": "SELECT * FROM music WHERE artist = 'nobody' AND song = 'none'"},
        ]
    )["Responses"]
    assert reads[0]["Item"]["artist"] == {"S": "Zeta"} and "Item" not in reads[1], reads

    bump = "UPDATE music SET plays = plays + ? WHERE artist = ? AND song = ?"
    client.execute_transaction(
        TransactStatements=[
            {"Statement": bump, "Parameters": [{"N": "5"}, {"S": "Epsilon"}, {"S": "Seven"}]},
            {"Statement": "DELETE FROM music WHERE artist = ? AND song = ?", "Parameters": [{"S": "Zeta"}, {"S": "Eight"}]},
        ]
    )
    item = client.get_item(TableName="music", Key={"artist": {"S": "Epsilon"}, "song": {"S": "Seven"}})["Item"]
    assert item["plays"] == {"N": "5"}, item
    assert "Item" not in client.get_item(TableName="music", Key={"artist": {"S": "Zeta"}, "song": {"S": "Eight"}})
    try:
        client.execute_transaction(
            TransactStatements=[
                {"Statement": bump, "Parameters": [{"N": "1"}, {"S": "Epsilon"}, {"S": "Seven"}]},
                {"Statement": insert, "Parameters": [{"S": "Alpha"}, {"S": "One"}, {"S": "rock"}, {"N": "0"}]},
            ]
        )
        raise AssertionError("the transaction should have been cancelled")
    except client.exceptions.TransactionCanceledException as e:
        codes = [r["Code"] for r in e.response["CancellationReasons"]]
        assert codes == ["None", "DuplicateItem"], e.response
    item = client.get_item(TableName="music", Key={"artist": {"S": "Epsilon"}, "song": {"S": "Seven"}})["Item"]
    assert item["plays"] == {"N": "5"}, "a cancelled transaction writes nothing"


def streams_smoke(client, streams):
    """Enables a stream, writes, and reads the records back with every iterator type."""
    client.create_table(
        TableName="feed",
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        BillingMode="PAY_PER_REQUEST",
    )
    table = client.update_table(
        TableName="feed", StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}
    )["TableDescription"]
    arn = table["LatestStreamArn"]
    try:
        client.update_table(
            TableName="feed", StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"}
        )
        raise AssertionError("a second stream should be refused")
    except ClientError as e:
        assert e.response["Error"]["Message"] == "Table already has an enabled stream: TableName: feed", e.response
    client.put_item(TableName="feed", Item={"id": {"S": "a"}, "n": {"N": "1"}})
    client.put_item(TableName="feed", Item={"id": {"S": "a"}, "n": {"N": "2"}})
    client.delete_item(TableName="feed", Key={"id": {"S": "a"}})

    assert [s["StreamArn"] for s in streams.list_streams(TableName="feed")["Streams"]] == [arn]
    description = streams.describe_stream(StreamArn=arn)["StreamDescription"]
    assert description["StreamStatus"] == "ENABLED", description
    shard = description["Shards"][0]["ShardId"]
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON")
    page = streams.get_records(ShardIterator=iterator["ShardIterator"])
    records = page["Records"]
    assert [r["eventName"] for r in records] == ["INSERT", "MODIFY", "REMOVE"], records
    assert records[1]["dynamodb"]["OldImage"]["n"] == {"N": "1"}, records[1]
    assert records[1]["dynamodb"]["NewImage"]["n"] == {"N": "2"}, records[1]
    # boto3 parses the epoch seconds into a datetime.
    assert records[0]["dynamodb"]["ApproximateCreationDateTime"].year >= 2024, records[0]
    first = records[0]["dynamodb"]["SequenceNumber"]
    after = streams.get_shard_iterator(
        StreamArn=arn, ShardId=shard, ShardIteratorType="AFTER_SEQUENCE_NUMBER", SequenceNumber=first
    )
    assert len(streams.get_records(ShardIterator=after["ShardIterator"])["Records"]) == 2
    latest = streams.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType="LATEST")
    assert streams.get_records(ShardIterator=latest["ShardIterator"])["Records"] == []
    try:
        streams.describe_stream(StreamArn=arn + "0")
        raise AssertionError("an unknown stream should be refused")
    except streams.exceptions.ResourceNotFoundException:
        pass
    client.delete_table(TableName="feed")


if __name__ == "__main__":
    main(sys.argv[1])
