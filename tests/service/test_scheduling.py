"""Scheduling that cannot starve a short request (issue 43).

verl sends one ``/run_code`` per test, each with its own client timeout (``run_timeout`` +
``compile_timeout`` + 10 s), and gives up on what is late. Looping samples must not hold the
workers while correct ones wait past that timeout, and a request whose client has gone away
must not go on running. Real server on loopback, real programs in the real sandbox; timeouts
here only keep a broken build from hanging, they assert no speed.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psutil
import pytest
import requests
from sandbox_fusion import RunCodeRequest, RunStatus, run_code
from verl.utils.reward_score.sandbox_fusion import compute_score

from .conftest import Server, start_server

TRUTH = {"inputs": ["1 2\n", "5 7\n", "10 -3\n"], "outputs": ["3\n", "12\n", "7\n"]}
RIGHT = "a, b = map(int, input().split())\nprint(a + b)"
LOOP = "while True:\n    pass"
SLEEP = "open('partial.txt', 'w').write('x')\nimport time\ntime.sleep(300)"
LOOPING, CORRECT = 8, 16  # the batch: every correct sample scored 0 at 2 workers
VERL_CONCURRENCY = 64  # verl's reward.sandbox_fusion.max_concurrent default


def fence(code: str) -> str:
    return f"My answer:\n```python\n{code}\n```\n"


def test_verl_scores_every_correct_sample_behind_looping_ones(server):
    """verl 0.9.1's own compute_score, a batch of 8 looping and 16 correct samples at once
    (72 requests, at most 64 in flight: verl's semaphore), ``run_timeout`` 3 (verl's client
    gives each request 16 s), 2 workers: every correct sample scores 1.0 and every loop is a
    time-out (0.0), as SandboxFusion scores them."""
    semaphore = threading.Semaphore(VERL_CONCURRENCY)
    samples = [LOOP] * LOOPING + [RIGHT] * CORRECT

    def score(code: str) -> tuple[float, list[dict]]:
        return compute_score(
            f"{server.url}/run_code", semaphore, 1024, fence(code), json.dumps(TRUTH), timeout=3
        )

    with ThreadPoolExecutor(len(samples)) as pool:
        scored = list(pool.map(score, samples))
    loops, correct = scored[:LOOPING], scored[LOOPING:]
    assert [s for s, _ in correct] == [1.0] * CORRECT, [m for _, m in correct]
    assert [s for s, _ in loops] == [0.0] * LOOPING
    assert all(case["status"] == "timeout" for _, meta in loops for case in meta), loops
    log = server.log.read_text()
    assert "POST /run_code 499" not in log  # no client gave up on its request


def test_the_official_client_with_default_arguments_is_never_starved(server):
    """SandboxFusion's client, ``RunCodeRequest(code, stdin, language)`` and nothing more
    (``run_timeout`` 10, no client timeout): 8 loops sent first, then 16 short programs.
    Every short one is answered (Success, its output) before any loop is: none waits behind
    them; the loops are TimeLimitExceeded."""
    finished: list[str] = []
    lock = threading.Lock()

    def send(kind: str, index: int) -> tuple[str, object]:
        code = LOOP if kind == "loop" else RIGHT
        answer = run_code(
            RunCodeRequest(code=code, stdin=f"{index} 1\n", language="python"),
            endpoint=server.url,
        )
        with lock:
            finished.append(kind)
        return kind, answer

    with ThreadPoolExecutor(LOOPING + CORRECT) as pool:
        loops = [pool.submit(send, "loop", i) for i in range(LOOPING)]
        time.sleep(0.5)  # the loops go first (an order, not a speed: nothing is timed)
        shorts = [pool.submit(send, "short", i) for i in range(CORRECT)]
        answers = [f.result(timeout=300) for f in loops + shorts]
    for _, answer in answers[:LOOPING]:
        assert answer.status == RunStatus.Failed
        assert answer.run_result.status == "TimeLimitExceeded"
    for index, (_, answer) in enumerate(answers[LOOPING:]):
        assert answer.status == RunStatus.Success
        assert answer.run_result.stdout == f"{index + 1}\n"
    assert finished[:CORRECT] == ["short"] * CORRECT, finished


def _port(server: Server) -> int:
    return int(server.url.rsplit(":", 1)[1])


def _send_raw(server: Server, body: dict) -> socket.socket:
    """A ``/run_code`` sent on a socket of the test's own, so that it can hang up mid-run."""
    data = json.dumps(body).encode()
    sock = socket.create_connection(("127.0.0.1", _port(server)), timeout=60)
    head = (
        f"POST /run_code HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(data)}\r\n\r\n"
    )
    sock.sendall(head.encode() + data)
    return sock


def _hang_up(sock: socket.socket) -> None:
    sock.shutdown(socket.SHUT_RDWR)
    sock.close()


def _wait_for(what, timeout: float = 60.0):
    """``what()`` once truthy; a bound that only keeps a broken build from hanging."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if value := what():
            return value
        time.sleep(0.05)
    raise AssertionError(f"never happened: {what.__doc__ or what}")


def _files(root: Path) -> set[str]:
    return {str(path.relative_to(root)) for path in root.rglob("*")}


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


@pytest.fixture
def one_program(tmp_path) -> Server:
    """One worker and one ``/run_code`` program at a time: a program left running would make
    every later request wait for it."""
    started = start_server(tmp_path, "--workers", "1", "--programs", "1")
    yield started
    assert started.stop(), started.log.read_text()
    assert started.leftovers() == []


def test_a_client_gone_mid_run_has_its_program_killed(one_program):
    """A program that would sleep 300 s; its client hangs up while it runs: the program is
    killed (psutil sees it go), nothing it wrote is left, the same worker (no server
    restarted) answers the next request at once, and the log says why in one line."""
    server = one_program
    servers, files = server.descendants(), _files(server.tmp)
    sock = _send_raw(server, {"code": SLEEP, "language": "python", "run_timeout": 300})

    def program() -> set[int]:
        """the program running"""
        found = server.descendants() - servers
        partial = any(p.name == "partial.txt" for p in server.tmp.rglob("*"))
        return found if found and partial else set()

    running = _wait_for(program)
    assert all(_alive(pid) for pid in running)
    _hang_up(sock)
    _wait_for(lambda: not any(_alive(pid) for pid in running))
    _wait_for(lambda: _files(server.tmp) == files)  # its run directory put back as made
    reply = requests.post(
        f"{server.url}/run_code",
        json={"code": "print(input())", "stdin": "next", "language": "python"},
        timeout=60,  # far below the 300 s the killed program had left: it is not waited for
    )
    assert reply.status_code == 200 and reply.json()["run_result"]["stdout"] == "next\n"
    assert server.descendants() == servers  # the same fork servers: none was replaced
    log = server.log.read_text()
    assert log.count("POST /run_code 499") == 1
    assert "the client went away: its request was cancelled" in log
    assert "Traceback" not in log


def test_a_client_gone_while_queued_never_runs(one_program):
    """Two 300 s sleepers for the one program slot: the second's client hangs up while it
    waits, then the first's while it runs. Neither holds the slot: the next request is
    answered (were the queued one run, it would sleep 300 s first)."""
    server = one_program
    servers = server.descendants()
    body = {"code": SLEEP, "language": "python", "run_timeout": 300}
    first = _send_raw(server, body)
    _wait_for(lambda: server.descendants() - servers)  # the first runs
    second = _send_raw(server, body)

    def both_in() -> bool:
        """both requests taken in"""
        return requests.get(f"{server.url}/health", timeout=10).json()["running"] == 2

    _wait_for(both_in)
    _hang_up(second)
    _wait_for(lambda: server.log.read_text().count("POST /run_code 499") == 1)
    _hang_up(first)
    reply = requests.post(
        f"{server.url}/run_code", json={"code": "print(7)", "language": "python"}, timeout=60
    )
    assert reply.status_code == 200 and reply.json()["run_result"]["stdout"] == "7\n"
    assert server.log.read_text().count("POST /run_code 499") == 2
    _wait_for(lambda: server.descendants() == servers)  # nothing of theirs left running
