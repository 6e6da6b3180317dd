"""NeMo-Gym's and open-r1's reward paths by URL against ``mcevaluate serve``, side by side
with the same reward in-process, in one run.

Workload: issue 24's RL reward (``speed/rl_reward.py``): 10 tests per problem, ``--completions``
fenced answers (default 256), half right, half wrong (on one test). Paths, each in its
framework's own request shape (``tests/service/test_nemo_gym.py`` and ``test_open_r1.py``
name the files and commits they were read from):

``nemo-gym``  code_gen's ``POST /verify``, one request per rollout (the stdin ``sum`` and the
    call-based ``evens``), ``--clients`` at once, as NeMo-Gym's rollout collection sends
    them; binary. In-process: :class:`evaluator.CodeReward` (binary) on the same rows.
``open-r1-e2b``  open-r1's E2B router ``POST /execute_batch``: one request holding the
    evaluation script of every completion (``sum`` and ``evens``), read as
    ``RoutedSandbox`` and ``E2BProvider`` read it; the share of tests passed. In-process:
    :func:`evaluator.reward.frameworks.open_r1.code_reward`. The batched path (target: within 1.2x).
``open-r1-piston``  open-r1's Codeforces reward through Piston's ``POST /api/v2/execute``:
    one request per test (``sum`` as an open-r1/codeforces row, 2,560 requests), ``--clients``
    at once (open-r1's ``PISTON_MAX_REQUESTS_PER_ENDPOINT``), scored by ``score_submission``'s
    weighted sum. In-process: :func:`evaluator.reward.frameworks.open_r1.cf_code_reward`.

Every score is checked against what the completion is; a mismatch voids the run (exit 1).
``--repeat K`` rounds, order rotated, medians. The overhead is each path's time over its
in-process twin, as a ratio and per completion.

Usage: ``python benchmarks/framework_http.py [--completions 256] [--workers 2] [--clients 16]
[--repeat 3] [--json PATH]``.
"""

from __future__ import annotations

import asyncio
import logging
import random
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import aiohttp
import requests

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE / "speed"))
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

from rl_reward import TESTS, make_completions, make_tests  # noqa: E402
from side_by_side import (  # noqa: E402
    Server,
    medians,
    race_options,
    timed_rounds,
    void_exit,
    write_results,
)

from evaluator.reward import shared_reward  # noqa: E402
from evaluator.reward.frameworks.open_r1 import cf_code_reward, code_reward  # noqa: E402
from tests.frameworks.open_r1_shapes import (  # noqa: E402 - open-r1's shapes, as tested
    open_r1_script,
    piston_request,
    router_rewards,
    weighted_sum,
)

PATHS = ["nemo-gym", "open-r1-e2b", "open-r1-piston"]


# --- the workload in each framework's shape ------------------------------------------------------


def nemo_rows(tests) -> dict[str, dict]:
    rows = {}
    for name in ("sum", "evens"):
        unit = {"inputs": [i for i, _ in tests[name]], "outputs": [o for _, o in tests[name]]}
        unit["fn_name"] = "evens" if name == "evens" else None
        rows[name] = {
            "responses_create_params": {"input": [{"role": "user", "content": name}]},
            "verifier_metadata": {"unit_tests": unit},
            "hash_id": name,
            "dataset": "bench",
        }
    return rows


def responses_object(text: str) -> dict:
    item = {"id": "msg_1", "type": "message", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}  # fmt: skip
    return {"id": "resp_1", "object": "response", "created_at": 0.0, "model": "policy",
            "output": [item], "parallel_tool_calls": True, "tool_choice": "auto", "tools": []}  # fmt: skip


def verification_infos(tests) -> dict[str, dict]:
    return {
        "sum": {
            "language": "python",
            "test_cases": [
                {"type": "stdin_stdout", "input": i, "output": o} for i, o in tests["sum"]
            ],
        },
        "evens": {
            "language": "python",
            "test_cases": [
                {"type": "function_call", "fn_name": "evens", "input": f"[{i}]", "output": o}
                for i, o in tests["evens"]
            ],
        },
    }


def cf_row(tests) -> dict[str, Any]:
    return {
        "id": "1/A",
        "official_tests": [{"input": i, "output": o} for i, o in tests["sum"]],
        "time_limit": 6.0,
        "memory_limit": 1024.0,
        "input_mode": "stdio",
        "generated_checker": None,
    }


def chat(text: str) -> list[dict[str, str]]:
    return [{"role": "assistant", "content": text}]


# --- the paths ---------------------------------------------------------------------------------


def nemo_http(server: Server, bodies: list[dict], clients: int) -> list[float]:
    session = requests.Session()
    adapter = requests.adapters.HTTPAdapter(pool_maxsize=clients)
    session.mount("http://", adapter)

    def verify(body):
        reply = session.post(f"{server.url}/verify", json=body, timeout=600)
        reply.raise_for_status()
        return reply.json()["reward"]

    with ThreadPoolExecutor(clients) as pool:
        return list(pool.map(verify, bodies))


def piston_http(server: Server, row: dict, codes: list[str], clients: int) -> list[float]:
    async def run() -> list[float]:
        tokens = asyncio.Semaphore(clients)
        timeout = aiohttp.ClientTimeout(sock_read=30)
        connector = aiohttp.TCPConnector(limit=clients)
        async with aiohttp.ClientSession(timeout=timeout, connector=connector) as session:

            async def one(code: str, test: dict) -> dict:
                async with (
                    tokens,
                    session.post(
                        f"{server.url}/api/v2/execute",
                        json=piston_request(row, test, code, "python"),
                        headers={"Content-Type": "application/json"},
                    ) as response,
                ):
                    if response.status != 200:
                        raise RuntimeError(await response.text())
                    return await response.json(content_type=None)

            async def score(code: str) -> float:
                tests = row["official_tests"]
                return weighted_sum(list(await asyncio.gather(*(one(code, t) for t in tests))))

            return list(await asyncio.gather(*(score(code) for code in codes)))

    return asyncio.run(run())


def main(argv: list[str] | None = None) -> int:
    parser = race_options(__doc__, completions=256, completions_help=None)
    parser.add_argument("--clients", type=int, default=16, help="requests at once (per-test paths)")
    parser.add_argument("--paths", default=",".join(PATHS))
    args = parser.parse_args(argv)
    logging.getLogger("evaluator.reward.frameworks.open_r1").setLevel(
        logging.ERROR
    )  # no CF_TESTS_FOLDER
    paths = args.paths.split(",")
    tests = make_tests(random.Random(args.seed))
    mixed = make_completions(args.completions // 2, tests, args.seed)  # sum and evens
    sums = [c for c in make_completions(args.completions, tests, args.seed) if c.problem == "sum"]
    rows, infos, row = nemo_rows(tests), verification_infos(tests), cf_row(tests)

    bodies = [{**rows[c.problem], "response": responses_object(c.text)} for c in mixed]
    nemo_columns = {"verifier_metadata": [rows[c.problem]["verifier_metadata"] for c in mixed],
                    "hash_id": [c.problem for c in mixed]}  # fmt: skip
    scripts = [open_r1_script(c.code, infos[c.problem]) for c in mixed]
    mixed_infos = [infos[c.problem] for c in mixed]
    cf_columns = {key: [value] * len(sums) for key, value in row.items()}
    cf_columns["language"] = ["python"] * len(sums)

    server = Server(args.workers)
    binary = shared_reward()  # binary, one fork server per core: the open-r1 functions' pool
    pairs = {
        "nemo-gym": (
            lambda: nemo_http(server, bodies, args.clients),
            lambda: binary(completions=[c.text for c in mixed], **nemo_columns),
            mixed,
            lambda c: 1.0 if c.passes == TESTS else 0.0,
        ),
        "open-r1-e2b": (
            lambda: router_rewards(server.url.removeprefix("http://"), scripts),
            lambda: code_reward([chat(c.text) for c in mixed], verification_info=mixed_infos),
            mixed,
            lambda c: c.passes / TESTS,
        ),
        "open-r1-piston": (
            lambda: piston_http(server, row, [c.code for c in sums], args.clients),
            lambda: cf_code_reward([chat(c.text) for c in sums], **cf_columns),
            sums,
            lambda c: (1.0 if c.passes == TESTS else 0.0) + 0.1 * c.passes / TESTS,
        ),
    }
    runners = {
        f"{path} {kind}": pairs[path][0 if kind == "http" else 1]
        for path in paths
        for kind in ("http", "in-process")
    }

    def check(name: str, got) -> list[int]:
        _, _, completions, expected = pairs[name.split(" ")[0]]
        return [i for i, (c, g) in enumerate(zip(completions, got, strict=True))
                if g is None or abs(g - expected(c)) > 1e-9]  # fmt: skip

    try:
        rounds = timed_rounds(runners, check, args.repeat)
    finally:
        server.close()
    times, median = rounds.times, medians(rounds.times)
    print(
        f"{args.completions} completions x {TESTS} tests, {args.workers} workers, "
        f"{args.clients} clients, {args.repeat} rounds (medians)"
    )
    print(f"{'path':16s} {'http s':>8s} {'in-proc s':>10s} {'ratio':>7s} {'ms/completion':>14s}")
    summary = {}
    for path in paths:
        http, local = median[f"{path} http"], median[f"{path} in-process"]
        count = len(pairs[path][2])
        per = 1000 * (http - local) / count
        summary[path] = {"http_s": http, "in_process_s": local, "ratio": http / local,
                         "overhead_ms_per_completion": per, "completions": count}  # fmt: skip
        print(f"{path:16s} {http:8.3f} {local:10.3f} {http / local:6.2f}x {per:14.2f}")
    write_results(args.json, args, rounds_s=times, summary=summary)
    return void_exit(rounds.void)


if __name__ == "__main__":
    sys.exit(main())
