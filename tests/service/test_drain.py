"""A stop is bounded (issue 43): SIGTERM lets the requests in flight finish for at most
``serve --drain-seconds``, cuts those still running past it, closes the pool and exits 0,
idle or not. (A request that finishes within the bound is answered:
test_load_and_stop.test_sigterm_lets_the_requests_in_flight_finish.)"""

from __future__ import annotations

import os
import signal
import time
from concurrent.futures import ThreadPoolExecutor

import requests

from .conftest import start_server


def test_an_idle_server_stops_with_status_0(tmp_path):
    server = start_server(tmp_path, "--workers", "1")
    children = server.descendants()
    assert server.stop(), server.log.read_text()
    assert server.process.returncode == 0
    log = server.log.read_text()
    assert "SIGTERM: stopping; requests in flight have 10 s to finish" in log
    assert not any(os.path.exists(f"/proc/{pid}") for pid in children)
    assert server.leftovers() == []


def test_sigint_stops_it_as_sigterm_does(tmp_path):
    server = start_server(tmp_path, "--workers", "1")
    server.process.send_signal(signal.SIGINT)
    assert server.process.wait(60) == 0
    assert "sandbox pool closed" in server.log.read_text()


def test_a_request_past_the_drain_is_cut_and_the_stop_still_clean(tmp_path):
    """A program sleeping well past the one-second drain: its request is cut (answered 503,
    one log line, never a 500), the pool closes once its program is gone, the process
    exits 0 and leaves nothing."""
    server = start_server(tmp_path, "--workers", "1", "--drain-seconds", "1")
    body = {"code": "import time\ntime.sleep(8)\nprint('late')", "language": "python"}
    body["run_timeout"] = 10
    with ThreadPoolExecutor(1) as pool:
        pending = pool.submit(server.post, "/run_code", body)
        deadline = time.monotonic() + 30  # until the request is running (never a timing claim)
        while (
            time.monotonic() < deadline
            and requests.get(f"{server.url}/health", timeout=10).json()["running"] != 1
        ):
            time.sleep(0.05)
        children = server.descendants()
        stopped = server.stop(timeout=120)
        reply = pending.result()
    log = server.log.read_text()
    assert stopped, log
    assert reply.status_code == 503 and "cut" in reply.json()["error"], reply.text
    assert "requests in flight have 1 s to finish" in log
    assert "Cancel 1 running task(s)" in log  # uvicorn's word for the cut
    assert "POST /run_code 503" in log and "Traceback" not in log
    assert not any(os.path.exists(f"/proc/{pid}") for pid in children)
    assert server.leftovers() == []
