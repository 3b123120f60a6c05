"""The wheel as a Python service's tests use it: the pytest plugin's fixtures and
monotable.start(), driven by boto3's client and resource APIs. Run by .ci/run in a fresh venv
with the wheel built by python/build_wheel.sh."""

from decimal import Decimal
from pathlib import Path

import boto3
import pytest
from boto3.dynamodb.conditions import Key

import monotable

DESIGN = Path(__file__).parent / "design.yaml"


def make_table(dynamodb, name):
    dynamodb.create_table(
        TableName=name,
        BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[
            {"AttributeName": "PK", "AttributeType": "S"},
            {"AttributeName": "SK", "AttributeType": "S"},
            {"AttributeName": "GSI1PK", "AttributeType": "S"},
            {"AttributeName": "GSI1SK", "AttributeType": "S"},
        ],
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
        GlobalSecondaryIndexes=[
            {
                "IndexName": "GSI1",
                "KeySchema": [
                    {"AttributeName": "GSI1PK", "KeyType": "HASH"},
                    {"AttributeName": "GSI1SK", "KeyType": "RANGE"},
                ],
                "Projection": {"ProjectionType": "ALL"},
            }
        ],
    )


def test_the_client_api_puts_gets_and_queries_a_gsi(monotable_endpoint, monotable_namespace):
    client = boto3.client(
        "dynamodb",
        endpoint_url=monotable_endpoint,
        region_name="us-east-1",
        aws_access_key_id="local",
        aws_secret_access_key="local",
    )
    table = monotable_namespace.table("users")
    make_table(client, table)
    client.put_item(
        TableName=table,
        Item={"PK": {"S": "USER#u1"}, "SK": {"S": "PROFILE"}, "GSI1PK": {"S": "EMAIL#ada@example.com"},
              "GSI1SK": {"S": "USER"}, "n": {"N": "1.50"}},
    )
    got = client.get_item(TableName=table, Key={"PK": {"S": "USER#u1"}, "SK": {"S": "PROFILE"}})
    assert got["Item"]["n"] == {"N": "1.5"}
    found = client.query(
        TableName=table,
        IndexName="GSI1",
        KeyConditionExpression="GSI1PK = :e",
        ExpressionAttributeValues={":e": {"S": "EMAIL#ada@example.com"}},
    )
    assert [i["PK"]["S"] for i in found["Items"]] == ["USER#u1"]
    with pytest.raises(client.exceptions.ConditionalCheckFailedException):
        client.put_item(
            TableName=table,
            Item={"PK": {"S": "USER#u1"}, "SK": {"S": "PROFILE"}},
            ConditionExpression="attribute_not_exists(PK)",
        )


def test_the_resource_api_writes_in_a_transaction_and_queries(monotable_server, monotable_namespace):
    dynamodb = boto3.resource("dynamodb", **monotable_server.client_kwargs)
    name = monotable_namespace.table("orders")
    make_table(dynamodb.meta.client, name)
    table = dynamodb.Table(name)
    with table.batch_writer() as batch:
        for i in range(30):
            batch.put_item(Item={"PK": "CUSTOMER#c1", "SK": f"ORDER#{i:03}", "total": Decimal(i)})
    page = table.query(KeyConditionExpression=Key("PK").eq("CUSTOMER#c1") & Key("SK").begins_with("ORDER#"),
                       ScanIndexForward=False, Limit=3)
    assert [item["SK"] for item in page["Items"]] == ["ORDER#029", "ORDER#028", "ORDER#027"]
    # The resource's client takes plain Python values, as the resource API does.
    client = dynamodb.meta.client
    client.transact_write_items(
        TransactItems=[
            {"Put": {"TableName": name, "Item": {"PK": "CUSTOMER#c1", "SK": "PROFILE"}}},
            {"Update": {"TableName": name, "Key": {"PK": "CUSTOMER#c1", "SK": "ORDER#000"},
                        "UpdateExpression": "ADD #t :t", "ExpressionAttributeNames": {"#t": "total"},
                        "ExpressionAttributeValues": {":t": 5}}},
        ]
    )
    assert table.get_item(Key={"PK": "CUSTOMER#c1", "SK": "ORDER#000"})["Item"]["total"] == Decimal(5)
    with pytest.raises(client.exceptions.TransactionCanceledException):
        client.transact_write_items(
            TransactItems=[
                {"ConditionCheck": {"TableName": name, "Key": {"PK": "nope", "SK": "nope"},
                                    "ConditionExpression": "attribute_exists(PK)"}},
            ]
        )


_CREATED_IN_A_NAMESPACE = []


def test_a_namespace_lists_only_its_own_tables(monotable_server, monotable_namespace):
    client = boto3.client("dynamodb", **monotable_server.client_kwargs)
    make_table(client, monotable_namespace.table("mine"))
    make_table(client, "outside-any-namespace")
    assert monotable_namespace.tables(client) == [monotable_namespace.table("mine")]
    _CREATED_IN_A_NAMESPACE.append(monotable_namespace.table("mine"))
    client.delete_table(TableName="outside-any-namespace")


def test_a_namespace_tables_are_gone_after_its_test(monotable_server):
    # Runs after the test above (pytest keeps a file's order): its namespace was torn down.
    assert _CREATED_IN_A_NAMESPACE, "test_a_namespace_lists_only_its_own_tables did not run first"
    client = boto3.client("dynamodb", **monotable_server.client_kwargs)
    assert _CREATED_IN_A_NAMESPACE[0] not in client.list_tables()["TableNames"]


def test_start_creates_the_design_table_and_keeps_a_data_directory(tmp_path):
    with monotable.start(design=str(DESIGN), stage="test", data_dir=str(tmp_path / "data")) as server:
        assert server.table_name == "shop-test-orders"
        client = boto3.client("dynamodb", **server.client_kwargs)
        client.put_item(TableName=server.table_name, Item={"PK": {"S": "a"}, "SK": {"S": "b"}})
    assert server.process.poll() is not None
    with monotable.start(data_dir=str(tmp_path / "data")) as again:
        client = boto3.client("dynamodb", **again.client_kwargs)
        item = client.get_item(TableName="shop-test-orders", Key={"PK": {"S": "a"}, "SK": {"S": "b"}})
        assert item["Item"]["PK"] == {"S": "a"}


def test_start_reports_the_servers_own_error(monotable_server):
    with pytest.raises(monotable.StartError, match="could not listen"):
        monotable.start(port=monotable_server.port)


def test_the_monotable_command_is_installed():
    import subprocess

    done = subprocess.run([monotable.binary_path(), "--version"], capture_output=True, text=True, check=True)
    assert done.stdout.startswith("monotable ")
