"""A real ``mcevaluate serve`` on a free loopback port, started and stopped by the tests.

The server runs as its own process (the command users type), with its own temporary
directory, so a test can check that nothing of it is left after it stops."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class Server:
    url: str
    process: subprocess.Popen
    tmp: Path
    log: Path

    def post(self, path: str, body: object, **kwargs) -> requests.Response:
        return requests.post(f"{self.url}{path}", json=body, timeout=60, **kwargs)

    def stop(self, timeout: float = 60) -> bool:
        """SIGTERM, then wait for the process to end. True when it stopped as it should:
        the pool closed after the last request, then the process exited 0 (a stop asked
        for and done, within ``serve --drain-seconds``)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        status = self.process.wait(timeout)
        return status == 0 and "sandbox pool closed" in self.log.read_text()

    def descendants(self) -> set[int]:
        """The server's processes below it (fork servers, their templates and children)."""
        parents: dict[int, int] = {}
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            parents[int(stat.parent.name)] = int(fields[1])
        found, frontier = set(), {self.process.pid}
        while frontier:
            frontier = {pid for pid, parent in parents.items() if parent in frontier} - found
            found |= frontier
        return found

    def leftovers(self) -> list[str]:
        """What the server left in its temporary directory."""
        return sorted(p.name for p in self.tmp.iterdir())


def start_server(
    tmp: Path, *args: str, env: dict[str, str] | None = None, python: str = sys.executable
) -> Server:
    port = free_port()
    sandbox_tmp = tmp / "tmp"
    sandbox_tmp.mkdir()
    log = tmp / "server.log"
    environment = {**os.environ, "TMPDIR": str(sandbox_tmp), **(env or {})}
    command = [python, "-m", "evaluator.cli", "serve", "--port", str(port), *args]
    with open(log, "wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=environment)
    server = Server(f"http://127.0.0.1:{port}", process, sandbox_tmp, log)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited: {log.read_text()}")
        try:
            if requests.get(f"{server.url}/health", timeout=1).json()["status"] == "ok":
                return server
        except (requests.ConnectionError, requests.Timeout, ValueError):
            time.sleep(0.1)
    process.kill()
    raise RuntimeError(f"server did not start: {log.read_text()}")


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[Server]:
    """One server for the module: two workers, loopback, no token."""
    started = start_server(tmp_path_factory.mktemp("serve"), "--workers", "2")
    yield started
    assert started.stop(), started.log.read_text()
    assert started.leftovers() == []
