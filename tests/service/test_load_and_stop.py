"""Many clients at once, a full queue, and a stop while requests are in flight."""

from __future__ import annotations

import os
import statistics
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import requests

from .conftest import start_server

CLIENTS = 128
REQUESTS_EACH = 3
LOOPERS = 2  # clients whose every program loops until its limit (6 s of CPU in all)


def _body(client: int, index: int) -> dict:
    if client < LOOPERS:
        return {"code": "while True:\n    pass", "language": "python", "run_timeout": 1}
    return {
        "code": "print(sum(map(int, input().split())))",
        "stdin": f"{client} {index}\n",
        "language": "python",
    }


def test_128_concurrent_clients_lose_nothing(tmp_path):
    server = start_server(tmp_path, "--workers", "2")
    latencies: list[float] = []
    lock = threading.Lock()

    def client(number: int) -> list[tuple[int, dict]]:
        answers = []
        with requests.Session() as session:
            for index in range(REQUESTS_EACH):
                started = time.perf_counter()
                reply = session.post(
                    f"{server.url}/run_code", json=_body(number, index), timeout=120
                )
                with lock:
                    latencies.append(time.perf_counter() - started)
                answers.append((reply.status_code, reply.json()))
        return answers

    try:
        started = time.perf_counter()
        with ThreadPoolExecutor(CLIENTS) as pool:
            results = list(pool.map(client, range(CLIENTS)))
        elapsed = time.perf_counter() - started
        children = server.descendants()
    finally:
        stopped = server.stop()
    for number, answers in enumerate(results):
        assert len(answers) == REQUESTS_EACH
        for index, (status, answer) in enumerate(answers):
            assert status == 200, answer
            if number < LOOPERS:
                assert answer["run_result"]["status"] == "TimeLimitExceeded"
            else:
                assert answer["status"] == "Success"
                assert answer["run_result"]["stdout"] == f"{number + index}\n"
    assert stopped
    assert children and not any(os.path.exists(f"/proc/{pid}") for pid in children)
    assert server.leftovers() == []
    total = CLIENTS * REQUESTS_EACH
    cuts = statistics.quantiles(latencies, n=100)
    print(
        f"\n{total} requests from {CLIENTS} clients in {elapsed:.2f} s: {total / elapsed:.0f} req/s, "
        f"p50 {1000 * cuts[49]:.0f} ms, p99 {1000 * cuts[98]:.0f} ms"
    )


def test_a_full_queue_answers_at_once(tmp_path):
    # one worker and one /run_code program: five requests are served at once (four per
    # worker, one per program); none may wait. SandboxFusion's endpoints answer 504, which
    # its clients retry (verl's retries nothing else); ours 503.
    args = ("--workers", "1", "--programs", "1", "--max-queue", "0")
    server = start_server(tmp_path, *args)
    slow = {"code": "import time\ntime.sleep(2)", "language": "python", "run_timeout": 5}
    try:
        with ThreadPoolExecutor(8) as pool:
            replies = list(pool.map(lambda _: server.post("/run_code", slow), range(8)))
        codes = sorted(r.status_code for r in replies)
        busy = [r for r in replies if r.status_code == 504]
        assert codes.count(200) >= 5 and busy and set(codes) == {200, 504}
        assert busy[0].headers["Retry-After"] == "1"
        assert busy[0].json()["error"].startswith("server busy")
        assert server.post("/run_code", {"code": "print(1)", "language": "python"}).ok
    finally:
        assert server.stop()


def test_sigterm_lets_the_requests_in_flight_finish(tmp_path):
    server = start_server(tmp_path, "--workers", "1")
    body = {"code": "import time\ntime.sleep(1.5)\nprint('done')", "language": "python"}
    with ThreadPoolExecutor(1) as pool:
        pending = pool.submit(server.post, "/run_code", body)
        time.sleep(0.5)  # the request is running
        children = server.descendants()
        stopped = server.stop()
        reply = pending.result()
    assert reply.status_code == 200 and reply.json()["run_result"]["stdout"] == "done\n"
    assert stopped
    assert not any(os.path.exists(f"/proc/{pid}") for pid in children)
    assert server.leftovers() == []
