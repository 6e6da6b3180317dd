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
    :func:`evaluator.reward.open_r1.code_reward`. The batched path (target: within 1.2x).
``open-r1-piston``  open-r1's Codeforces reward through Piston's ``POST /api/v2/execute``:
    one request per test (``sum`` as an open-r1/codeforces row, 2,560 requests), ``--clients``
    at once (open-r1's ``PISTON_MAX_REQUESTS_PER_ENDPOINT``), scored by ``score_submission``'s
    weighted sum. In-process: :func:`evaluator.reward.open_r1.cf_code_reward`.

Every score is checked against what the completion is; a mismatch voids the run (exit 1).
``--repeat K`` rounds, order rotated, medians. The overhead is each path's time over its
in-process twin, as a ratio and per completion.

Usage: ``python benchmarks/framework_http.py [--completions 256] [--workers 2] [--clients 16]
[--repeat 3] [--json PATH]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import random
import statistics
import sys
import time
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
from serve_throughput import Server  # noqa: E402

from evaluator.reward import shared_reward  # noqa: E402
from evaluator.reward.open_r1 import cf_code_reward, code_reward  # noqa: E402

TEMPLATE = (ROOT / "tests/data/frameworks/open_r1/evaluation_script_template.txt").read_text()
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


def open_r1_script(code: str, info: dict) -> str:
    return TEMPLATE.format(
        code=json.dumps(code), test_cases=json.dumps(json.dumps(info["test_cases"]))
    )


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


def e2b_http(server: Server, scripts: list[str]) -> list[float | None]:
    payload = {"scripts": scripts, "languages": ["python"] * len(scripts), "timeout": 30,
               "request_timeout": 28}  # fmt: skip
    reply = requests.post(
        f"http://{server.url.removeprefix('http://')}/execute_batch", json=payload
    )
    reply.raise_for_status()
    rewards = []
    for result in reply.json():
        execution = result["execution"]
        text = None
        if execution is not None:
            text = next((r["text"] for r in execution["results"] if r["is_main_result"]), None)
        try:
            rewards.append(float(text))
        except (TypeError, ValueError):
            rewards.append(None)
    return rewards


def piston_request(row: dict, test: dict, code: str) -> dict:
    config = f"TIME_LIMIT={row['time_limit']}\nMEMORY_LIMIT={row['memory_limit']}\nINPUT_MODE=stdio"
    return {
        "files": [
            {"name": "main.python", "content": code},
            {"name": "input.txt", "content": test["input"]},
            {"name": "correct_output.txt", "content": test["output"]},
            {"name": "grader_config", "content": config},
        ],
        "run_timeout": (row["time_limit"] + 10) * 1000,
        "language": "cf_python3",
        "version": "*",
    }


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
                        json=piston_request(row, test, code),
                        headers={"Content-Type": "application/json"},
                    ) as response,
                ):
                    if response.status != 200:
                        raise RuntimeError(await response.text())
                    return await response.json(content_type=None)

            async def score(code: str) -> float:
                results = await asyncio.gather(*(one(code, t) for t in row["official_tests"]))
                if any(r["compile"]["code"] != 0 for r in results):
                    return -0.1
                passed = sum(
                    r["run"]["code"] == 0 and r["run"]["stdout"].strip() == "1" for r in results
                )
                total = len(results)
                return (1.0 if passed == total else 0.0) + 0.1 * passed / total

            return list(await asyncio.gather(*(score(code) for code in codes)))

    return asyncio.run(run())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--completions", type=int, default=256)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--clients", type=int, default=16, help="requests at once (per-test paths)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=24)
    parser.add_argument("--paths", default=",".join(PATHS))
    parser.add_argument("--json", help="write every figure here")
    args = parser.parse_args(argv)
    logging.getLogger("evaluator.reward.open_r1").setLevel(logging.ERROR)  # no CF_TESTS_FOLDER
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
            lambda: e2b_http(server, scripts),
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
    runs = [(path, kind) for path in paths for kind in ("http", "in-process")]
    times: dict[tuple[str, str], list[float]] = {run: [] for run in runs}
    void: dict[str, list[int]] = {}
    try:
        for path, kind in runs:  # warm-up: pools started, problems decoded, imports done
            pairs[path][0 if kind == "http" else 1]()
        for round_ in range(args.repeat):
            shift = round_ % len(runs)
            for path, kind in runs[shift:] + runs[:shift]:
                http, local, completions, expected = pairs[path]
                started = time.perf_counter()
                got = (http if kind == "http" else local)()
                times[(path, kind)].append(time.perf_counter() - started)
                bad = [i for i, (c, g) in enumerate(zip(completions, got, strict=True))
                       if g is None or abs(g - expected(c)) > 1e-9]  # fmt: skip
                if bad:
                    void[f"{path} {kind}"] = bad[:5]
    finally:
        server.close()
    medians = {f"{p} {k}": statistics.median(t) for (p, k), t in times.items()}
    print(
        f"{args.completions} completions x {TESTS} tests, {args.workers} workers, "
        f"{args.clients} clients, {args.repeat} rounds (medians)"
    )
    print(f"{'path':16s} {'http s':>8s} {'in-proc s':>10s} {'ratio':>7s} {'ms/completion':>14s}")
    summary = {}
    for path in paths:
        http, local = medians[f"{path} http"], medians[f"{path} in-process"]
        count = len(pairs[path][2])
        per = 1000 * (http - local) / count
        summary[path] = {"http_s": http, "in_process_s": local, "ratio": http / local,
                         "overhead_ms_per_completion": per, "completions": count}  # fmt: skip
        print(f"{path:16s} {http:8.3f} {local:10.3f} {http / local:6.2f}x {per:14.2f}")
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "args": vars(args),
                    "started": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
                    "rounds_s": {f"{p} {k}": t for (p, k), t in times.items()},
                    "summary": summary,
                },
                indent=1,
            )
            + "\n"
        )
    if void:
        print(f"VOID: scores that do not match their completions: {void}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
