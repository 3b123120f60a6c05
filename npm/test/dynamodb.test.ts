// The npm package as a TypeScript service uses it: monotable started by the test helper
// (global-setup.ts, and startMonotable() directly), driven by the AWS SDK v3 client and its
// DocumentClient. Run by .ci/run from the packed tarballs (npm/pack.mjs).
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ConditionalCheckFailedException,
  TransactionCanceledException,
} from "@aws-sdk/client-dynamodb";
import {
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
} from "@aws-sdk/lib-dynamodb";
import { startMonotable, binaryPath } from "monotable";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const endpoint = process.env.DYNAMODB_ENDPOINT;
if (!endpoint) throw new Error("DYNAMODB_ENDPOINT is not set: run through vitest.config.ts (global-setup.ts)");
const credentials = { accessKeyId: "local", secretAccessKey: "local" };
const client = new DynamoDBClient({ endpoint, region: "us-east-1", credentials });
const doc = DynamoDBDocumentClient.from(client);
const TABLE = "app-test-main";

describe("monotable through the AWS SDK v3", () => {
  it("creates a table with a GSI, puts, gets and queries by the GSI", async () => {
    await client.send(
      new CreateTableCommand({
        TableName: TABLE,
        BillingMode: "PAY_PER_REQUEST",
        AttributeDefinitions: [
          { AttributeName: "PK", AttributeType: "S" },
          { AttributeName: "SK", AttributeType: "S" },
          { AttributeName: "GSI1PK", AttributeType: "S" },
          { AttributeName: "GSI1SK", AttributeType: "S" },
        ],
        KeySchema: [
          { AttributeName: "PK", KeyType: "HASH" },
          { AttributeName: "SK", KeyType: "RANGE" },
        ],
        GlobalSecondaryIndexes: [
          {
            IndexName: "GSI1",
            KeySchema: [
              { AttributeName: "GSI1PK", KeyType: "HASH" },
              { AttributeName: "GSI1SK", KeyType: "RANGE" },
            ],
            Projection: { ProjectionType: "ALL" },
          },
        ],
      }),
    );
    const user = (id: string, email: string) => ({
      PK: `USER#${id}`,
      SK: "PROFILE",
      GSI1PK: `EMAIL#${email}`,
      GSI1SK: "USER",
      EntityType: "User",
      userId: id,
      email,
      tags: new Set(["b", "a"]),
      visits: 3,
    });
    await doc.send(new PutCommand({ TableName: TABLE, Item: user("u1", "ada@example.com") }));
    await doc.send(new PutCommand({ TableName: TABLE, Item: user("u2", "bob@example.com") }));

    const got = await doc.send(new GetCommand({ TableName: TABLE, Key: { PK: "USER#u1", SK: "PROFILE" } }));
    expect(got.Item).toMatchObject({ userId: "u1", email: "ada@example.com", visits: 3 });
    expect(got.Item?.tags).toEqual(new Set(["a", "b"]));

    const byEmail = await doc.send(
      new QueryCommand({
        TableName: TABLE,
        IndexName: "GSI1",
        KeyConditionExpression: "GSI1PK = :pk AND GSI1SK = :sk",
        ExpressionAttributeValues: { ":pk": "EMAIL#bob@example.com", ":sk": "USER" },
      }),
    );
    expect(byEmail.Items?.map((i) => i.userId)).toEqual(["u2"]);
  });

  it("refuses a conditional write whose condition fails, with the SDK's typed error", async () => {
    const create = new PutCommand({
      TableName: TABLE,
      Item: { PK: "USER#u3", SK: "PROFILE", version: 1 },
      ConditionExpression: "attribute_not_exists(PK)",
    });
    await doc.send(create);
    const again = doc.send(create);
    await expect(again).rejects.toBeInstanceOf(ConditionalCheckFailedException);
    await expect(again).rejects.toMatchObject({ name: "ConditionalCheckFailedException" });
  });

  it("commits a transaction, and cancels one with the reason per item", async () => {
    await doc.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: TABLE, Item: { PK: "ORDER#o1", SK: "ORDER", total: 10 } } },
          {
            Update: {
              TableName: TABLE,
              Key: { PK: "USER#u1", SK: "PROFILE" },
              UpdateExpression: "ADD visits :one",
              ExpressionAttributeValues: { ":one": 1 },
            },
          },
        ],
      }),
    );
    const u1 = await doc.send(new GetCommand({ TableName: TABLE, Key: { PK: "USER#u1", SK: "PROFILE" } }));
    expect(u1.Item?.visits).toBe(4);

    const cancelled = doc.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: TABLE, Item: { PK: "ORDER#o2", SK: "ORDER", total: 20 } } },
          {
            ConditionCheck: {
              TableName: TABLE,
              Key: { PK: "USER#missing", SK: "PROFILE" },
              ConditionExpression: "attribute_exists(PK)",
            },
          },
        ],
      }),
    );
    const error = await cancelled.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TransactionCanceledException);
    const reasons = (error as TransactionCanceledException).CancellationReasons?.map((r) => r.Code);
    expect(reasons?.[1]).toBe("ConditionalCheckFailed");
    const o2 = await doc.send(new GetCommand({ TableName: TABLE, Key: { PK: "ORDER#o2", SK: "ORDER" } }));
    expect(o2.Item).toBeUndefined();
  });
});

describe("startMonotable", () => {
  it("creates the design's table and stops the server", async () => {
    const design = fileURLToPath(new URL("./design.yaml", import.meta.url));
    const server = await startMonotable({ design, stage: "test" });
    try {
      expect(server.tableName).toBe("shop-test-orders");
      const own = new DynamoDBClient(server.clientConfig);
      const described = await own.send(new DescribeTableCommand({ TableName: server.tableName }));
      expect(described.Table?.GlobalSecondaryIndexes?.map((i) => i.IndexName)).toEqual(["GSI1"]);
    } finally {
      await server.stop();
    }
    expect(server.process.exitCode ?? server.process.signalCode).not.toBeNull();
  });

  it("rejects with the server's own message when it cannot start", async () => {
    const taken = await startMonotable();
    try {
      await expect(startMonotable({ port: taken.port })).rejects.toThrow(/could not listen/);
    } finally {
      await taken.stop();
    }
  });

  it("runs the binary of the platform package", () => {
    expect(existsSync(binaryPath())).toBe(true);
  });
});
