"""pytest fixtures for code that talks to DynamoDB, registered through the ``pytest11`` entry point.

* ``monotable_server`` (session): a :class:`monotable.Server` in memory, shared by the run.
* ``monotable_endpoint`` (session): its endpoint URL, for ``endpoint_url=``.
* ``monotable_namespace`` (function): a fresh prefix for table names; every table whose name
  starts with it is deleted after the test, so tests sharing the server never see each
  other's tables.

``MONOTABLE_BINARY`` names another executable; ``--monotable-arg=ARG`` (repeatable) passes
arguments to ``monotable serve``.
"""

from __future__ import annotations

import uuid
from typing import Iterator, List

import pytest

from ._server import Server, start


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("monotable")
    group.addoption(
        "--monotable-arg",
        action="append",
        default=[],
        metavar="ARG",
        help="an argument for the `monotable serve` of the monotable_server fixture (repeatable)",
    )


@pytest.fixture(scope="session")
def monotable_server(request: pytest.FixtureRequest) -> Iterator[Server]:
    """A `monotable serve` in memory on a free loopback port, for the whole test session."""
    server = start(args=request.config.getoption("--monotable-arg"))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def monotable_endpoint(monotable_server: Server) -> str:
    """The endpoint URL of the session's server, e.g. ``http://127.0.0.1:41789``."""
    return monotable_server.endpoint


class Namespace:
    """Table names private to one test: ``ns.table("users")`` → ``t1a2b3c4-users``."""

    def __init__(self, server: Server, prefix: str):
        self.server = server
        self.prefix = prefix

    def table(self, name: str) -> str:
        return f"{self.prefix}{name}"

    def tables(self, client) -> List[str]:
        """The tables of this namespace that exist now."""
        names: List[str] = []
        for page in client.get_paginator("list_tables").paginate():
            names += [n for n in page["TableNames"] if n.startswith(self.prefix)]
        return names

    def __repr__(self) -> str:
        return f"<monotable.Namespace {self.prefix!r} on {self.server.endpoint}>"


@pytest.fixture
def monotable_namespace(monotable_server: Server) -> Iterator[Namespace]:
    """A fresh table-name prefix; its tables are deleted after the test (needs boto3)."""
    try:
        import boto3
    except ImportError as e:  # the fixture is about DynamoDB tables: boto3 is the client
        raise pytest.UsageError("the monotable_namespace fixture needs boto3: pip install boto3") from e
    namespace = Namespace(monotable_server, f"t{uuid.uuid4().hex[:8]}-")
    yield namespace
    client = boto3.client("dynamodb", **monotable_server.client_kwargs)
    for name in namespace.tables(client):
        try:
            client.delete_table(TableName=name)
        except client.exceptions.ClientError as e:
            if "deletion protection" not in str(e).lower():
                raise
            client.update_table(TableName=name, DeletionProtectionEnabled=False)
            client.delete_table(TableName=name)
