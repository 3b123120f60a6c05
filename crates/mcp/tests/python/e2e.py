#!/usr/bin/env python3
"""`monotable mcp` driven end to end by the official MCP Python SDK (PyPI `mcp`, pinned in
.ci/run), a client this project did not write.

    python3 crates/mcp/tests/python/e2e.py PATH/TO/monotable

1. `monotable serve --data-dir D` gets the example designs' tables (`monotable design apply`,
   and the `create_table_from_design` tool) and sample items written through a `--writable` MCP
   server over stdio (put_entity, update, delete, conditional on the version field of
   example-orgs' Record).
2. With the server stopped, a read-only `monotable mcp --data-dir D` over stdio: the tools
   listed are exactly the reading ones, every tool is called with valid and with invalid input
   (invalid: a tool result with isError, never a protocol error), the resources are read, a
   large answer is truncated and its cursor continues it, the writing tools and a PartiQL
   INSERT are refused, and afterwards the item count and every file of D are unchanged.
3. `monotable mcp --http 0` (streamable HTTP) on the in-memory engine: the same client over
   HTTP lists the tools, runs the design tools and gets tool errors for bad input.

Plain asserts; exits non-zero on the first failure.
"""

import asyncio
import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

ROOT = Path(__file__).resolve().parents[4]
USERS = ROOT / "crates/example-users/design.yaml"
ORGS = ROOT / "crates/example-orgs/design.yaml"
USERS_TRAFFIC = ROOT / "crates/example-users/traffic.yaml"
ORGS_TRAFFIC = ROOT / "crates/example-orgs/traffic.yaml"
USERS_TABLE = "example-dev-users"
ORGS_TABLE = "acme-dev-ledger"

READ_TOOLS = {
    "design_check", "design_validate", "design_cost", "design_show", "design_iac",
    "design_codegen", "design_new", "list_tables", "describe_table", "run_access_pattern",
    "get_entity", "query", "partiql",
}
WRITE_TOOLS = {"put_entity", "update", "delete", "create_table_from_design"}
RESOURCES = {
    "monotable://design.yaml", "monotable://design.json", "monotable://design.schema.json",
    "monotable://standard.md", "monotable://lint-rules.md",
}
POSTS = 60
MAX_OUTPUT = 4096


def environment():
    """The servers' environment: no MONOTABLE_* or AWS settings of the caller's."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MONOTABLE_", "AWS_"))}
    env["AWS_REGION"] = "us-east-1"
    env["RUST_LOG"] = "warn"
    return env


def text(result):
    return "".join(c.text for c in result.content if getattr(c, "type", "") == "text")


async def ok(session, tool, arguments):
    result = await session.call_tool(tool, arguments)
    assert not result.is_error, f"{tool}({json.dumps(arguments)[:200]}) failed: {text(result)}"
    return text(result)


async def ok_json(session, tool, arguments):
    return json.loads(await ok(session, tool, arguments))


async def refused(session, tool, arguments, needle):
    """A tool error (isError) whose text contains `needle`: never a protocol error."""
    result = await session.call_tool(tool, arguments)
    assert result.is_error, f"{tool}({json.dumps(arguments)[:200]}) should fail: {text(result)[:300]}"
    assert needle.lower() in text(result).lower(), f"{tool}: {needle!r} not in {text(result)!r}"
    return text(result)


def start_serve(exe, data_dir):
    process = subprocess.Popen(
        [exe, "serve", "--data-dir", str(data_dir), "--port", "0", "--console", "off"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=environment(), text=True,
    )
    banner = process.stdout.readline()
    match = re.search(r"http://127\.0\.0\.1:\d+", banner)
    assert match, f"no endpoint in the serve banner: {banner!r}"
    return process, match.group(0)


def stop(process):
    process.send_signal(signal.SIGINT)
    process.wait(timeout=30)


def snapshot(directory):
    """Every file under `directory` with its size and content hash."""
    out = {}
    for path in sorted(Path(directory).rglob("*")):
        if path.is_file():
            out[str(path.relative_to(directory))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def stdio(exe, *args):
    return stdio_client(StdioServerParameters(command=exe, args=["mcp", *args], env=environment()))


async def load(exe, endpoint):
    """The sample data, written through a writable server."""
    subprocess.run(
        [exe, "design", "apply", str(USERS), "--endpoint", endpoint],
        check=True, env=environment(), stdout=subprocess.DEVNULL,
    )
    async with stdio(exe, "--endpoint", endpoint, "--writable", "--design", str(USERS)) as (r, w):
        async with ClientSession(r, w) as session:
            await session.initialize()
            names = {t.name for t in (await session.list_tools()).tools}
            assert names == READ_TOOLS | WRITE_TOOLS, names
            for tool in (await session.list_tools()).tools:
                if tool.name in WRITE_TOOLS:
                    assert tool.annotations.read_only_hint is False, tool
                    assert tool.annotations.destructive_hint is (tool.name != "create_table_from_design"), tool
            # The table monotable design apply created is left alone.
            await refused(session, "create_table_from_design", {}, "exists already")
            for user in ("alice", "bob"):
                await ok(session, "put_entity", {
                    "entity": "User",
                    "item": {"user_id": user, "email": f"{user}@example.com", "name": user.title()},
                })
            for i in range(POSTS):
                await ok(session, "put_entity", {
                    "entity": "Post",
                    "item": {"user_id": "alice", "post_id": f"2024-05-{i:04d}", "title": f"post {i} " + "x" * 40},
                })
            await ok(session, "update", {
                "entity": "User", "params": {"user_id": "bob"}, "set": {"name": "Robert"},
            })
            # A missing item is not created by update.
            await refused(session, "update", {
                "entity": "User", "params": {"user_id": "nobody"}, "set": {"name": "X"},
            }, "not as expected")
    async with stdio(exe, "--endpoint", endpoint, "--writable", "--design", str(ORGS)) as (r, w):
        async with ClientSession(r, w) as session:
            await session.initialize()
            created = await ok_json(session, "create_table_from_design", {})
            assert created == {"created": ORGS_TABLE}, created
            described = await ok_json(session, "describe_table", {"table": ORGS_TABLE})
            assert described["status"] == "ACTIVE" and described["global_secondary_indexes"], described
            record = {"org_id": "o1", "id": "r1", "status": "open", "changed": "2024-05-01", "amount": 5}
            put = await ok_json(session, "put_entity", {"entity": "Record", "item": record})
            assert put["item"]["version"] == 1, put
            # Created once: a second create of the same key is refused by its condition.
            await refused(session, "put_entity", {"entity": "Record", "item": record}, "not as expected")
            await ok(session, "update", {
                "entity": "Record", "params": {"org_id": "o1", "id": "r1"},
                "set": {"status": "closed"}, "expected_version": 1,
            })
            await refused(session, "update", {
                "entity": "Record", "params": {"org_id": "o1", "id": "r1"},
                "set": {"status": "open"}, "expected_version": 1,
            }, "not as expected")
            await refused(session, "update", {
                "entity": "Record", "params": {"org_id": "o1", "id": "r1"}, "set": {"status": "open"},
            }, "expected_version")
            temp = dict(record, id="r2")
            await ok(session, "put_entity", {"entity": "Record", "item": temp})
            await refused(session, "delete", {"entity": "Record", "params": {"org_id": "o1", "id": "r2"}},
                          "expected_version")
            await ok(session, "delete", {
                "entity": "Record", "params": {"org_id": "o1", "id": "r2"}, "expected_version": 1,
            })
            rows = await ok_json(session, "partiql", {"statement": f'SELECT * FROM "{ORGS_TABLE}"'})
            assert rows["count"] == 1, rows


async def paged(session, tool, arguments):
    """The whole text of `tool`, following its cursors; and how many pages it took."""
    pages, cursor, whole = 0, None, ""
    while True:
        args = dict(arguments, **({"cursor": cursor} if cursor else {}))
        page = await ok(session, tool, args)
        pages += 1
        assert len(page.encode()) <= MAX_OUTPUT + 400, len(page)
        note = re.search(r'\n\n\[truncated: .*"cursor": "(\d+)" for the rest\.\]$', page)
        if not note:
            return whole + page, pages
        whole += page[: note.start()]
        cursor = note.group(1)


async def count_items(session):
    rows = json.loads((await paged(session, "partiql", {"statement": f'SELECT * FROM "{USERS_TABLE}"'}))[0])
    assert rows["next_token"] is None, rows
    return rows["count"]


async def read_only(exe, data_dir):
    before = snapshot(data_dir)
    args = ["--data-dir", str(data_dir), "--design", str(USERS), "--max-output", str(MAX_OUTPUT)]
    async with stdio(exe, *args) as (r, w):
        async with ClientSession(r, w) as session:
            info = await session.initialize()
            assert "read-only" in (info.instructions or ""), info.instructions
            tools = (await session.list_tools()).tools
            assert {t.name for t in tools} == READ_TOOLS, {t.name for t in tools}
            for tool in tools:
                assert tool.input_schema.get("type") == "object", tool
                assert tool.annotations.read_only_hint is True, tool
            resources = {str(r.uri) for r in (await session.list_resources()).resources}
            assert resources == RESOURCES, resources
            for uri in RESOURCES:
                contents = (await session.read_resource(uri)).contents
                assert contents and contents[0].text, uri
            rules = (await session.read_resource("monotable://lint-rules.md")).contents[0].text
            assert "MT001" in rules and "MV001" in rules, rules[:200]
            standard = (await session.read_resource("monotable://standard.md")).contents[0].text
            assert standard.startswith("# The single-table standard"), standard[:80]
            assert "example" in (await session.read_resource("monotable://design.yaml")).contents[0].text

            items = await count_items(session)
            assert items == 2 + POSTS, items

            # Design tools, on the loaded design and on the other example given inline.
            for inline in ({}, {"design": ORGS.read_text()}):
                check = json.loads((await paged(session, "design_check", inline))[0])
                assert check["errors"] == 0, check
                validate = json.loads((await paged(session, "design_validate", inline))[0])
                assert validate["passed"] is True, validate
                show, _ = await paged(session, "design_show", inline)
                assert show.lstrip().startswith(("|", "#")), show[:100]
                for fmt in ("cloudformation", "cloudformation-yaml", "terraform", "pulumi", "cdk"):
                    iac, _ = await paged(session, "design_iac", dict(inline, format=fmt))
                    assert iac.strip(), fmt
                for lang in ("typescript", "rust"):
                    code, _ = await paged(session, "design_codegen", dict(inline, lang=lang))
                    assert code.startswith("// file: "), code[:80]
            for design, traffic in ((USERS, USERS_TRAFFIC), (ORGS, ORGS_TRAFFIC)):
                cost, _ = await paged(session, "design_cost", {"design": design.read_text(), "traffic": traffic.read_text()})
                assert "on_demand" in cost or "monthly" in cost.lower(), cost[:300]
            scaffold = await ok(session, "design_new", {
                "app": "shop", "model": "orders",
                "entities": [{"name": "Order", "pk": "CUSTOMER#{customer_id}", "sk": "ORDER#{order_id}", "fields": ["total"]}],
                "access_patterns": [
                    {"name": "get-order", "operation": "get", "entity": "Order"},
                    {"name": "list-orders", "operation": "query", "entity": "Order"},
                    {"name": "create-order", "operation": "put", "entity": "Order"},
                ],
            })
            assert "app: shop" in scaffold and "list-orders" in scaffold, scaffold
            body = scaffold.split("\n# design_check on this design:")[0]
            check = await ok_json(session, "design_check", {"design": body})
            assert check["errors"] == 0, check

            # Data tools.
            tables = await ok_json(session, "list_tables", {})
            assert USERS_TABLE in tables["tables"] and ORGS_TABLE in tables["tables"], tables
            described = await ok_json(session, "describe_table", {"table": USERS_TABLE})
            assert described["table"] == USERS_TABLE and len(described["global_secondary_indexes"]) == 2, described
            user = await ok_json(session, "get_entity", {"entity": "User", "params": {"user_id": "bob"}})
            assert user["found"] and user["item"]["item"]["name"] == "Robert", user
            assert user["item"]["entity"] == "User" and user["item"]["keys"] == {"user_id": "bob"}, user
            queried = await ok_json(session, "query", {
                "table": USERS_TABLE, "key_condition": "PK = :pk AND begins_with(SK, :p)",
                "values": {":pk": "USER#alice", ":p": "POST#"}, "limit": 5,
            })
            assert queried["count"] == 5 and queried["last_evaluated_key"], queried
            patterns = [p["name"] for p in json.loads(
                (await session.read_resource("monotable://design.json")).contents[0].text)["access_patterns"]]
            assert "list-posts" in patterns or any("post" in p for p in patterns), patterns
            list_posts = next(p for p in patterns if "post" in p and p.startswith("list"))

            # A large answer: truncated to --max-output, each cursor continuing the text.
            whole, pages = await paged(session, "run_access_pattern", {"pattern": list_posts, "params": {"user_id": "alice"}})
            assert pages > 1, pages
            answer = json.loads(whole)
            assert answer["count"] == POSTS, answer["count"]
            assert all(i["entity"] == "Post" and i["keys"]["user_id"] == "alice" for i in answer["items"])
            assert answer["consumed_capacity"]["total"] > 0, answer["consumed_capacity"]
            by_email = await ok_json(session, "run_access_pattern", {"pattern": "get-user-by-email", "params": {"email": "alice@example.com"}}) \
                if "get-user-by-email" in patterns else None
            if by_email is not None:
                assert by_email["count"] == 1, by_email

            # Invalid input: tool errors that say what to do.
            await refused(session, "design_check", {"design": "not: [a design"}, "design")
            await refused(session, "design_check", {"desgin": "typo"}, "unknown field")
            await refused(session, "design_iac", {"format": "ansible"}, "unknown variant")
            await refused(session, "design_validate", {"seed": "one"}, "invalid arguments")
            await refused(session, "design_codegen", {"lang": "cobol"}, "unknown variant")
            await refused(session, "list_tables", {"limit": 3}, "unknown field")
            await refused(session, "design_cost", {"traffic": "- not a traffic file"}, "traffic")
            await refused(session, "design_new", {"entities": [], "access_patterns": []}, "entities")
            await refused(session, "describe_table", {"table": "no-such-table"}, "list_tables")
            await refused(session, "run_access_pattern", {"pattern": "no-such-pattern"}, "has no access pattern")
            await refused(session, "run_access_pattern", {"pattern": list_posts}, "user_id")
            await refused(session, "get_entity", {"entity": "Nope", "params": {}}, "no entity type")
            await refused(session, "query", {"table": USERS_TABLE, "key_condition": "PK = :missing"}, "ValidationException")
            await refused(session, "partiql", {"statement": "SELEC nonsense"}, "read-only")
            await refused(session, "design_show", {"cursor": "999999999"}, "cursor")
            await refused(session, "no_such_tool", {}, "no tool")

            # Read-only means read-only.
            await refused(session, "partiql", {"statement": f"INSERT INTO \"{USERS_TABLE}\" VALUE {{'PK': 'X', 'SK': 'Y'}}"}, "read-only")
            await refused(session, "partiql", {"statement": f"DELETE FROM \"{USERS_TABLE}\" WHERE PK = 'USER#bob' AND SK = 'PROFILE'"}, "read-only")
            await refused(session, "put_entity", {"entity": "User", "item": {"user_id": "eve", "email": "e@x"}}, "--writable")
            await refused(session, "delete", {"entity": "User", "params": {"user_id": "bob"}}, "--writable")
            await refused(session, "update", {"entity": "User", "params": {"user_id": "bob"}, "set": {"name": "X"}}, "--writable")
            assert await count_items(session) == items
    after = snapshot(data_dir)
    changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
    assert not changed, f"the read-only server changed the data directory: {changed}"


async def over_http(exe):
    process = subprocess.Popen(
        [exe, "mcp", "--http", "0", "--in-memory", "--design", str(ORGS)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=environment(), text=True,
    )
    try:
        banner = process.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:\d+/mcp", banner)
        assert match, f"no URL in the banner: {banner!r}"
        async with streamable_http_client(match.group(0)) as (r, w):
            async with ClientSession(r, w) as session:
                await session.initialize()
                names = {t.name for t in (await session.list_tools()).tools}
                assert names == READ_TOOLS, names
                check = await ok_json(session, "design_check", {})
                assert check["errors"] == 0, check
                assert (await ok(session, "design_show", {})).strip()
                assert await ok_json(session, "list_tables", {}) == {"tables": []}
                await refused(session, "run_access_pattern", {"pattern": "list-records-by-status", "params": {"org_id": "o1", "status": "open"}}, "ResourceNotFoundException")
                await refused(session, "put_entity", {"entity": "Org", "item": {"org_id": "o"}}, "--writable")
                await refused(session, "design_codegen", {"lang": "cobol"}, "unknown variant")
    finally:
        stop(process)


async def main(exe):
    with tempfile.TemporaryDirectory(prefix="monotable-mcp-e2e-") as scratch:
        data_dir = Path(scratch) / "data"
        serve, endpoint = start_serve(exe, data_dir)
        try:
            await load(exe, endpoint)
        finally:
            stop(serve)
        await read_only(exe, data_dir)
    await over_http(exe)
    print("mcp e2e: ok")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: e2e.py PATH/TO/monotable")
    asyncio.run(main(os.path.abspath(sys.argv[1])))
