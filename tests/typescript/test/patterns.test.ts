// Every read access pattern of crates/example-users/design.yaml and crates/example-orgs/design.yaml,
// run through the generated modules (generated/*.ts, written by `monotable design codegen`)
// against a `monotable serve` in memory. Items are written with the generated write builders;
// what comes back is parsed by the generated Zod schemas.
//
// MONOTABLE_BIN names the monotable executable (.ci/codegen sets it); without it the test fails.

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { DynamoDBClient, TransactionCanceledException, ConditionalCheckFailedException } from "@aws-sdk/client-dynamodb";
import {
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from "@aws-sdk/lib-dynamodb";
import * as users from "../generated/users.js";
import * as ledger from "../generated/ledger.js";
import * as kitchen from "../generated/kitchen.js";

const root = fileURLToPath(new URL("../../../..", import.meta.url));
const REGION = "us-east-1";
let server: ChildProcess | undefined;
let endpoint = "";
let doc: DynamoDBDocumentClient;

/** The read patterns each test ran, by module, to check that none was left out. */
const ran = new Map<object, Set<string>>([
  [users, new Set()],
  [ledger, new Set()],
]);

function startServer(exe: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(exe, ["serve", "--host", "127.0.0.1", "--port", "0", "--region", REGION], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    server = child;
    let out = "";
    const timer = setTimeout(() => reject(new Error(`monotable serve did not start: ${out}`)), 15_000);
    child.stdout!.setEncoding("utf8");
    child.stdout!.on("data", (chunk: string) => {
      out += chunk;
      const m = /monotable is serving DynamoDB on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once("exit", (code) => reject(new Error(`monotable serve exited with ${code}: ${out}`)));
  });
}

/** Creates the design's table with `monotable design apply` (the table comes from the design, S22). */
function apply(design: string, table: string): void {
  const exe = process.env.MONOTABLE_BIN!;
  execFileSync(exe, ["design", "apply", `${root}/${design}`, "--endpoint", endpoint, "--table", table], {
    env: { ...process.env, AWS_REGION: REGION, AWS_ACCESS_KEY_ID: "test", AWS_SECRET_ACCESS_KEY: "test" },
  });
}

before(async () => {
  const exe = process.env.MONOTABLE_BIN;
  assert.ok(exe, "set MONOTABLE_BIN to the monotable executable");
  endpoint = await startServer(exe);
  const client = new DynamoDBClient({
    endpoint,
    region: REGION,
    credentials: { accessKeyId: "test", secretAccessKey: "test" },
  });
  doc = DynamoDBDocumentClient.from(client);
  apply("crates/example-users/design.yaml", "users");
  apply("crates/example-orgs/design.yaml", "ledger");
  apply("crates/design/tests/fixtures/codegen.yaml", "kitchen");
});

after(() => {
  server?.kill("SIGTERM");
});

/** Runs a read pattern's command and parses its output with the pattern's parser. */
async function query<P, T>(
  module: object,
  pattern: { name: string; parse(o: { Items?: Record<string, unknown>[] }): T[] },
  input: P,
): Promise<T[]> {
  ran.get(module)!.add(pattern.name);
  const out = await doc.send(new QueryCommand(input as never));
  return pattern.parse(out);
}

describe("users design", () => {
  const T = "users";
  const alice = users.personalScope({ userId: "alice", orgs: [], capabilities: [] });
  const admin = users.adminScope({ userId: "ops", orgs: [], capabilities: ["admin"] });
  const posts = ["2024-05-01T10:00:00Z", "2024-05-02T10:00:00Z", "2024-05-03T10:00:00Z"];

  before(async () => {
    for (const id of ["alice", "bob", "carol", "a#b"]) {
      const scope = users.personalScope({ userId: id, orgs: [], capabilities: [] });
      const user = { userId: id, email: `${id}@example.com`, name: id.toUpperCase() };
      await doc.send(new TransactWriteCommand(users.createUser.input(T, scope, user)));
    }
    for (const [i, postId] of posts.entries()) {
      await doc.send(new PutCommand(users.createPost.input(T, alice, { userId: "alice", postId, title: `Post ${i}` })));
    }
    for (const commentId of ["c0", "c1"]) {
      const comment = { userId: "alice", postId: posts[0]!, commentId, author: "bob", text: "nice" };
      await doc.send(new PutCommand(users.createComment.input(T, alice, comment)));
    }
    await doc.send(
      new PutCommand(
        users.createComment.input(T, alice, { userId: "alice", postId: posts[1]!, commentId: "c9", author: "carol", text: "hm" }),
      ),
    );
  });

  test("get-user returns the caller's own profile, parsed", async () => {
    ran.get(users)!.add(users.getUser.name);
    const out = await doc.send(new GetCommand(users.getUser.input(T, alice)));
    const user = users.getUser.parse(out);
    assert.equal(user?.EntityType, "User");
    assert.equal(user?.name, "ALICE");
    assert.equal(user?.CreatedBy, "alice");
  });

  test("get-user escapes a key value the way the library does", async () => {
    const scope = users.personalScope({ userId: "a#b", orgs: [], capabilities: [] });
    const input = users.getUser.input(T, scope);
    assert.deepEqual(input.Key, { PK: "USER#a%23b", SK: "PROFILE" });
    const user = users.getUser.parse(await doc.send(new GetCommand(input)));
    assert.equal(user?.userId, "a#b");
  });

  test("list-posts returns the caller's posts, newest first with descending, a page at a time", async () => {
    const all = await query(users, users.listPosts, users.listPosts.input(T, alice, { descending: true }));
    assert.deepEqual(all.map((p) => p.title), ["Post 2", "Post 1", "Post 0"]);
    const input = users.listPosts.input(T, alice, { limit: 2 });
    const first = await doc.send(new QueryCommand(input));
    assert.equal(users.listPosts.parse(first).length, 2);
    const rest = await doc.send(new QueryCommand(users.listPosts.input(T, alice, { limit: 2, startKey: first.LastEvaluatedKey! })));
    assert.deepEqual(users.listPosts.parse(rest).map((p) => p.title), ["Post 2"]);
  });

  test("list-comments-on-post returns the comments of one post", async () => {
    const comments = await query(users, users.listCommentsOnPost, users.listCommentsOnPost.input(T, alice, { postId: posts[0]! }));
    assert.deepEqual(comments.map((c) => c.commentId), ["c0", "c1"]);
  });

  test("user-partition returns every entity type of the caller's partition, told apart by EntityType", async () => {
    const items = await query(users, users.userPartition, users.userPartition.input(T, alice));
    const types = items.map((i) => i.EntityType);
    assert.equal(types.filter((t) => t === "User").length, 1);
    assert.equal(types.filter((t) => t === "Post").length, 3);
    assert.equal(types.filter((t) => t === "Comment").length, 3);
    const profile = items.find((i): i is users.User => i.EntityType === "User");
    assert.equal(profile?.email, "alice@example.com");
  });

  test("get-user-by-email needs the admin scope and finds the user on GSI1", async () => {
    assert.equal(users.getUserByEmail.adminOnly, true);
    const found = await query(users, users.getUserByEmail, users.getUserByEmail.input(T, admin, { email: "bob@example.com" }));
    assert.deepEqual(found.map((u) => u.userId), ["bob"]);
  });

  test("list-users pages through every user on GSI2", async () => {
    const first = await doc.send(new QueryCommand(users.listUsers.input(T, admin, { limit: 2 })));
    ran.get(users)!.add(users.listUsers.name);
    const page1 = users.listUsers.parse(first);
    const rest = users.listUsers.parse(
      await doc.send(new QueryCommand(users.listUsers.input(T, admin, { startKey: first.LastEvaluatedKey! }))),
    );
    assert.deepEqual([...page1, ...rest].map((u) => u.userId), ["a#b", "alice", "bob", "carol"]);
  });

  test("a second user with a taken email is refused by its guard item", async () => {
    const mallory = users.personalScope({ userId: "mallory", orgs: [], capabilities: [] });
    const dup = { userId: "mallory", email: "alice@example.com", name: "M" };
    await assert.rejects(doc.send(new TransactWriteCommand(users.createUser.input(T, mallory, dup))), TransactionCanceledException);
  });

  test("a write naming another tenant is refused before it is sent", () => {
    assert.throws(
      () => users.createPost.input(T, alice, { userId: "bob", postId: "x", title: "forged" }),
      (e: unknown) => e instanceof users.Forbidden && e.reason === "TenantMismatch",
    );
  });

  test("the admin scope needs the admin capability", () => {
    assert.throws(
      () => users.adminScope({ userId: "alice", orgs: [], capabilities: [] }),
      (e: unknown) => e instanceof users.Forbidden && e.reason === "NotAdmin",
    );
  });
});

describe("orgs design", () => {
  const T = "ledger";
  const ctx = { userId: "u1", orgs: ["acme"], capabilities: [] };
  const acme = ledger.orgScope(ctx, "acme");

  before(async () => {
    await doc.send(new PutCommand(ledger.createOrg.input(T, acme, { org_id: "acme", name: "Acme" })));
    const records = [
      { org_id: "acme", id: "r0", status: "open", changed: "2024-05-01T00:00:00Z", amount: "10" },
      { org_id: "acme", id: "r1", status: "closed", changed: "2024-05-03T00:00:00Z", amount: "20" },
    ];
    for (const r of records) {
      await doc.send(new PutCommand(ledger.createRecord.input(T, acme, r)));
    }
    for (const period of ["2023-Q4", "2024-Q1", "2024-Q2"]) {
      await doc.send(new PutCommand(ledger.createDeclaration.input(T, acme, { org_id: "acme", period, total: "0" })));
    }
    await doc.send(new PutCommand(ledger.createDocument.input(T, acme, { org_id: "acme", doc_id: "d9", storage_ref: "s3://docs/d9" })));
  });

  test("org scope is refused for an organisation the caller does not hold", () => {
    assert.throws(
      () => ledger.orgScope(ctx, "globex"),
      (e: unknown) => e instanceof ledger.Forbidden && e.reason === "NotAMember",
    );
  });

  test("list-records-by-status reads one status of the scope's organisation on gsi1", async () => {
    const open = await query(ledger, ledger.listRecordsByStatus, ledger.listRecordsByStatus.input(T, acme, { status: "open" }));
    assert.deepEqual(open.map((r) => [r.id, r.version]), [["r0", 1]]);
  });

  test("update-record moves a record to another status and checks the version it read", async () => {
    const input = ledger.updateRecord.input(T, acme, { id: "r1" }, { status: "open", changed: "2024-05-04T00:00:00Z" }, { expectVersion: 1 });
    const updated = ledger.updateRecord.parse(await doc.send(new UpdateCommand(input)));
    assert.equal(updated.version, 2);
    const open = await query(ledger, ledger.listRecordsByStatus, ledger.listRecordsByStatus.input(T, acme, { status: "open" }));
    assert.deepEqual(open.map((r) => r.id), ["r0", "r1"]);
    const stale = ledger.updateRecord.input(T, acme, { id: "r1" }, { amount: "30" }, { expectVersion: 1 });
    await assert.rejects(doc.send(new UpdateCommand(stale)), ConditionalCheckFailedException);
  });

  test("list-declarations-of-year reads the declarations whose period starts with the year", async () => {
    const decls = await query(ledger, ledger.listDeclarationsOfYear, ledger.listDeclarationsOfYear.input(T, acme, { period: "2024" }));
    assert.deepEqual(decls.map((d) => d.period), ["2024-Q1", "2024-Q2"]);
  });

  test("org-partition returns the organisation's items of every type", async () => {
    const items = await query(ledger, ledger.orgPartition, ledger.orgPartition.input(T, acme));
    const count = (t: string) => items.filter((i) => i.entityType === t).length;
    assert.deepEqual([count("Org"), count("Record"), count("Declaration"), count("Document")], [1, 2, 3, 1]);
  });
});

test("every read access pattern of both designs ran", { concurrency: false }, () => {
  for (const [module, names] of ran) {
    const reads = Object.values(module)
      .filter((v): v is { name: string; operation: string } => typeof v === "object" && v !== null && "operation" in v)
      .filter((p) => p.operation === "get" || p.operation === "query")
      .map((p) => p.name);
    assert.ok(reads.length > 0);
    assert.deepEqual([...names].sort(), reads.sort());
  }
});

/** A value of DynamoDB's JSON wire form as lib-dynamodb gives it (strings, numbers, booleans here). */
function plain(av: Record<string, unknown>): unknown {
  if ("S" in av) return av.S;
  if ("N" in av) return Number(av.N);
  if ("BOOL" in av) return av.BOOL;
  throw new Error(`unexpected attribute value ${JSON.stringify(av)}`);
}

function plainItem(item: Record<string, Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(item).map(([k, v]) => [k, plain(v)]));
}

// fixtures/library-items.json holds what the Rust library plans for the same creates
// (written and kept current by crates/codegen-check/tests/generated.rs): keys, escaping,
// stamps, version, index keys and unique guards must be the same from both languages.
test("the write builders store the items the Rust library stores", () => {
  const library = JSON.parse(readFileSync(new URL("../../fixtures/library-items.json", import.meta.url), "utf8"));
  const now = library.now as string;
  const expect = (name: string) => (library[name] as Record<string, Record<string, unknown>>[]).map(plainItem);
  const alice = users.personalScope({ userId: "alice", orgs: [], capabilities: [] });
  const user = users.createUser.input("t", alice, { userId: "alice", email: "alice@example.com", name: "Alice" }, { now });
  assert.deepEqual(user.TransactItems!.map((a) => a.Put!.Item), expect("create-user"));
  const post = users.createPost.input("t", alice, { userId: "alice", postId: "p#1", title: "Hello" }, { now });
  assert.deepEqual([post.Item], expect("create-post"));
  const acme = ledger.orgScope({ userId: "alice", orgs: ["acme"], capabilities: [] }, "acme");
  const record = { org_id: "acme", id: "r0", status: "open", changed: "2024-05-01T00:00:00Z", amount: "10" };
  assert.deepEqual([ledger.createRecord.input("t", acme, record, { now }).Item], expect("create-record"));
});

// A put not named create… is an upsert, as the library's `put` (crates/monotable/src/repo.rs).
test("an upsert keeps the created stamps and requires the version it replaces", async () => {
  const me = kitchen.personalScope({ userId: "ann", orgs: [], capabilities: [] });
  const first = { owner: "ann", note_id: "n1", body: "one", version: 0 };
  const created = kitchen.saveNote.parse(
    await doc.send(new UpdateCommand(kitchen.saveNote.input("kitchen", me, first, { now: "2024-01-01T00:00:00.000Z" }))),
  );
  assert.deepEqual([created.version, created.CreatedAt], [1, "2024-01-01T00:00:00.000Z"]);
  const second = { ...first, body: "two", version: 1 };
  const replaced = kitchen.saveNote.parse(
    await doc.send(new UpdateCommand(kitchen.saveNote.input("kitchen", me, second, { now: "2024-02-01T00:00:00.000Z" }))),
  );
  assert.deepEqual(
    [replaced.body, replaced.version, replaced.CreatedAt, replaced.UpdatedAt],
    ["two", 2, "2024-01-01T00:00:00.000Z", "2024-02-01T00:00:00.000Z"],
  );
  await assert.rejects(doc.send(new UpdateCommand(kitchen.saveNote.input("kitchen", me, second))), ConditionalCheckFailedException);
});
