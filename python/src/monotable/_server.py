"""`start()`: a private `monotable serve` for tests, ready when it returns."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import threading
from collections import deque
from typing import Dict, Iterable, List, Mapping, Optional

from ._binary import binary_path

_READY = re.compile(r"monotable is serving DynamoDB on (http://\S+)")
_APPLIED = re.compile(r"(?:created table|table) (\S+)")
#: Lines of the server's standard error kept for an error message.
_STDERR_LINES = 200


class StartError(RuntimeError):
    """The server could not be started; the message carries what it wrote to stderr."""


class Server:
    """A running `monotable serve` (see :func:`start`). A context manager: leaving it stops it."""

    #: Static credentials any server in the default ``--auth accept`` mode accepts.
    ACCESS_KEY_ID = "local"
    SECRET_ACCESS_KEY = "local"

    def __init__(self, process: subprocess.Popen, endpoint: str, region: str, stderr: deque):
        self.process = process
        self.endpoint = endpoint
        self.region = region
        self.table_name: Optional[str] = None
        self._stderr = stderr
        host_port = endpoint.split("://", 1)[1]
        self.host, _, port = host_port.rpartition(":")
        self.port = int(port)

    @property
    def client_kwargs(self) -> Dict[str, str]:
        """Keyword arguments for ``boto3.client("dynamodb", **kw)`` or ``boto3.resource``."""
        return {
            "endpoint_url": self.endpoint,
            "region_name": self.region,
            "aws_access_key_id": self.ACCESS_KEY_ID,
            "aws_secret_access_key": self.SECRET_ACCESS_KEY,
        }

    def stop(self, timeout: float = 5.0) -> None:
        """Stops the server gracefully (SIGTERM; killed after ``timeout`` seconds). Idempotent."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def __enter__(self) -> "Server":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"<monotable.Server {self.endpoint}>"


def start(
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    data_dir: Optional[str] = None,
    design: Optional[str] = None,
    stage: Optional[str] = None,
    table_name: Optional[str] = None,
    region: str = "us-east-1",
    args: Iterable[str] = (),
    env: Optional[Mapping[str, str]] = None,
    binary: Optional[str] = None,
    timeout: float = 10.0,
) -> Server:
    """Starts ``monotable serve`` and returns once it accepts requests.

    ``port=0`` (the default) picks a free port; tables live in memory unless ``data_dir`` is
    given. With ``design`` (a monotable design file), its table is created once the server is
    up and named in ``server.table_name`` (``stage`` or ``table_name`` choose the name). Use
    it as a context manager, or call ``stop()``::

        with monotable.start() as server:
            dynamodb = boto3.client("dynamodb", **server.client_kwargs)

    Raises :class:`StartError` with the server's own message if it cannot start.
    """
    exe = binary or binary_path()
    # Tables live in the region a request is signed for; --region makes the console show the
    # region of `client_kwargs`.
    command: List[str] = [exe, "serve", "--host", host, "--port", str(port), "--region", region]
    if data_dir is not None:
        command += ["--data-dir", os.fspath(data_dir)]
    if design is not None:
        command += ["--design", os.fspath(design)]
    command += list(args)
    child_env = {**os.environ, **(env or {})}
    process = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=child_env,
        text=True,
        encoding="utf-8",
        errors="replace",
    )
    stderr: deque = deque(maxlen=_STDERR_LINES)
    found: Dict[str, str] = {}
    banner = threading.Event()

    # Both streams are read to their end on daemon threads, so a chatty server never blocks
    # on a full pipe.
    def read_stdout() -> None:
        for line in process.stdout:
            if "endpoint" not in found:
                m = _READY.search(line)
                if m:
                    found["endpoint"] = m.group(1)
                    banner.set()
        banner.set()

    def read_stderr() -> None:
        for line in process.stderr:
            stderr.append(line)

    threading.Thread(target=read_stdout, name="monotable-stdout", daemon=True).start()
    threading.Thread(target=read_stderr, name="monotable-stderr", daemon=True).start()

    def fail(message: str) -> StartError:
        if process.poll() is None:
            process.kill()
        process.wait()
        said = "".join(stderr).strip()
        return StartError(f"{message} ({' '.join(command)})" + (f"\n{said}" if said else ""))

    if not banner.wait(timeout):
        raise fail(f"monotable did not start within {timeout} s")
    if "endpoint" not in found:
        raise fail(f"monotable exited before it was ready (exit code {process.wait()})")
    server = Server(process, found["endpoint"], region, stderr)
    if design is not None:
        try:
            server.table_name = _apply(exe, design, server.endpoint, stage, table_name, region, child_env)
        except Exception:
            server.stop()
            raise
    return server


def _apply(exe, design, endpoint, stage, table_name, region, env) -> str:
    """`monotable design apply`: creates the design's table and returns its name."""
    command = [exe, "design", "apply", os.fspath(design), "--endpoint", endpoint]
    if stage is not None:
        command += ["--stage", stage]
    if table_name is not None:
        command += ["--table", table_name]
    done = subprocess.run(
        command, capture_output=True, text=True, env={**env, "AWS_REGION": region}, check=False
    )
    if done.returncode != 0:
        raise StartError(f"{' '.join(command)} failed: {(done.stderr or done.stdout).strip()}")
    m = _APPLIED.search(done.stdout)
    if not m:
        raise StartError(f"{' '.join(command)} did not name the table it applied: {done.stdout.strip()}")
    return m.group(1)
