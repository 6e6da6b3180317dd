"""The RL reward through ``mcevaluate serve``, side by side with the library, in one run.

Workload: issue 24's RL reward (``speed/rl_reward.py``): two problems of 10 small tests (a
stdin sum, a call-based ``evens``), ``--completions`` fenced answers to each (default 128:
256 in all), half right, half wrong. Strategies, all on ``--workers`` fork servers:

``verl-run-code``  verl 0.9.1's own ``sandbox_fusion.compute_score`` per completion,
    pointed at the server's ``/run_code``: one HTTP request per test (2,560), verl's
    wrapper script for call-based tests, a thread pool of 16 completions at once and verl's
    semaphore of 64 requests, as its reward manager runs it. Its score is the share of tests
    passed.
``ours-batch``  one ``POST /grade`` holding both problems and every answer (binary: a
    program stops at its first failing test).
``ours-in-process``  a warm :class:`evaluator.CodeReward` (binary), called as TRL calls it.

Every score is checked against what the completion is; a mismatch voids the run (exit 1).
``--repeat K`` rounds, order rotated, medians. The overhead of the service is the batch
endpoint's time over the library's (target: at most 1.2x), and per request (``/run_code``)
the verl path's time over the library's, divided by its requests.

Usage: ``python benchmarks/serve_throughput.py [--completions 128] [--workers 2]
[--repeat 3] [--json PATH]``.
"""

from __future__ import annotations

import random
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import requests

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "speed"))
sys.path.insert(0, str(HERE))

from rl_reward import (  # noqa: E402
    TESTS,
    call_ours,
    columns,
    ground_truth,
    make_completions,
    make_tests,
)
from side_by_side import (  # noqa: E402
    Server,
    medians,
    race_options,
    timed_rounds,
    void_exit,
    write_results,
)

from evaluator import CodeReward  # noqa: E402

STRATEGIES = ["verl-run-code", "ours-batch", "ours-in-process"]


def run_verl(server: Server, completions, tests) -> list[float]:
    from verl.utils.reward_score.sandbox_fusion import compute_score

    semaphore = threading.Semaphore(64)
    truths = {name: ground_truth(tests, name) for name in ("sum", "evens")}

    def score(completion) -> float:
        value, _ = compute_score(
            f"{server.url}/run_code",
            semaphore,
            1024,
            completion.text,
            truths[completion.problem],
            timeout=6,
        )
        return value

    with ThreadPoolExecutor(16) as pool:
        return list(pool.map(score, completions))


def batch_body(completions, tests) -> dict[str, Any]:
    problems = [
        {
            "id": "sum",
            "harness": "stdin",
            "tests": [{"input": i, "output": o} for i, o in tests["sum"]],
        },
        {
            "id": "evens",
            "harness": "functional",
            "func_name": "evens",
            "tests": [{"input": i, "output": o} for i, o in tests["evens"]],
        },
    ]
    samples = [
        {"question_id": name, "output_list": [c.text for c in completions if c.problem == name]}
        for name in ("sum", "evens")
    ]
    return {"problems": problems, "samples": samples, "options": {"early_exit": True}}


def run_batch(server: Server, completions, tests) -> list[float]:
    reply = requests.post(f"{server.url}/grade", json=batch_body(completions, tests), timeout=600)
    reply.raise_for_status()
    graded = {row["question_id"]: list(row["graded_list"]) for row in reply.json()["results"]}
    return [1.0 if graded[c.problem].pop(0) else 0.0 for c in completions]


def expected(name: str, completion) -> float:
    if name == "verl-run-code":
        return completion.passes / TESTS
    return 1.0 if completion.passes == TESTS else 0.0


def main(argv: list[str] | None = None) -> int:
    args = race_options(__doc__).parse_args(argv)
    tests = make_tests(random.Random(args.seed))
    completions = make_completions(args.completions, tests, args.seed)
    cols = columns(completions, tests)
    server = Server(args.workers)
    reward = CodeReward(mode="binary", workers=args.workers)
    runners = {
        "verl-run-code": lambda: run_verl(server, completions, tests),
        "ours-batch": lambda: run_batch(server, completions, tests),
        "ours-in-process": lambda: call_ours(reward, completions, cols),
    }

    def check(name: str, got) -> list[int]:
        return [i for i, (c, g) in enumerate(zip(completions, got, strict=True))
                if abs(g - expected(name, c)) > 1e-9]  # fmt: skip

    try:
        rounds = timed_rounds(runners, check, args.repeat)
    finally:
        reward.close()
        server.close()
    rows, median = rounds.times, medians(rounds.times)
    library = median["ours-in-process"]
    requests_made = len(completions) * TESTS
    print(
        f"{len(completions)} completions x {TESTS} tests, {args.workers} workers, "
        f"{args.repeat} rounds (medians)"
    )
    print(f"{'strategy':18s} {'wall s':>8s} {'compl/s':>8s} {'x in-process':>13s}")
    for name in STRATEGIES:
        print(
            f"{name:18s} {median[name]:8.3f} {len(completions) / median[name]:8.0f} "
            f"{median[name] / library:12.2f}x"
        )
    per_request = (median["verl-run-code"] - library) / requests_made
    batch_over = median["ours-batch"] - library
    print(
        f"service overhead: /grade {1000 * batch_over:.0f} ms for the whole batch "
        f"({median['ours-batch'] / library:.2f}x the library; target <= 1.2x); "
        f"/run_code {1000 * per_request:.2f} ms per request over the library "
        f"({requests_made} requests)"
    )
    write_results(
        args.json,
        args,
        rounds_s=rows,
        median_s=median,
        batch_over_library=median["ours-batch"] / library,
        run_code_overhead_ms_per_request=1000 * per_request,
    )
    return void_exit(rounds.void)


if __name__ == "__main__":
    sys.exit(main())
