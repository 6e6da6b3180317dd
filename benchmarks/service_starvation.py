"""The RL reward through verl's client with looping samples in the batch (issue 43).

Workload: issue 24's RL reward (``speed/rl_reward.py``): two problems of 10 small tests (a
stdin sum, a call-based ``evens``), ``--completions`` fenced answers to each (default 32: 64
in all), half right, half wrong, of which ``--loop-share`` (10%) are replaced by programs
that loop until their limit (``--timeout``, 3 s, verl's ``run_timeout``). Strategies, all on
``--workers`` (2):

``verl``  verl 0.9.1's own ``sandbox_fusion.compute_score`` per completion, pointed at
    ``mcevaluate serve``'s ``/run_code`` (its defaults: up to 64 programs at once): one
    request per test, a thread pool of 16 completions at once and verl's semaphore of 64
    requests, as its reward manager runs it; verl's client gives each request
    ``2 * timeout + 10`` seconds, then scores the test as failed.
``verl-programs=workers``  the same against a server that runs only as many programs at once
    as it has workers (``--programs`` equal to ``--workers``: the scheduling before issue 43,
    with its cancellation of abandoned requests): correct samples wait behind the loops.
``ours-in-process``  a warm :class:`evaluator.CodeReward` (binary, ``time_limit`` the same),
    called as TRL calls it.

For each: wall time, the share of correct samples (every test passed) scored 1.0, and the
share of all samples scored as what they are (verl's score is the share of tests passed;
ours is binary). Ratios are each strategy's wall time over the in-process reward's.

Usage: ``python benchmarks/service_starvation.py [--completions 32] [--workers 2]
[--loop-share 0.1] [--timeout 3] [--repeat 1] [--json PATH]``.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

import requests

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "speed"))
sys.path.insert(0, str(HERE))

import side_by_side  # noqa: E402
from rl_reward import (  # noqa: E402
    TESTS,
    Completion,
    call_ours,
    columns,
    ground_truth,
    make_completions,
    make_tests,
)

from evaluator import CodeReward  # noqa: E402

STRATEGIES = ["verl", "verl-programs=workers", "ours-in-process"]
LOOPS = {
    "sum": "while True:\n    pass",
    "evens": "def evens(xs):\n    while True:\n        pass",
}


class Server(side_by_side.Server):
    """The benchmarks' server (:class:`side_by_side.Server`), which also counts what it
    cancelled."""

    def cancelled(self) -> int:
        """Requests the server cancelled because their client had gone (verl timed out)."""
        return Path(self.log_path).read_text().count("its request was cancelled")


def with_loops(completions: list[Completion], share: float) -> list[Completion]:
    """Every ``1/share``-th completion replaced by a program looping until its limit."""
    step = max(1, round(1 / share))
    made = []
    for index, completion in enumerate(completions):
        if index % step == step - 1:
            code = LOOPS[completion.problem]
            text = f"Let me solve it.\n```python\n{code}\n```\n"
            completion = replace(completion, text=text, code=code, passes=0)
        made.append(completion)
    return made


def run_verl(url: str, completions, tests, timeout: float) -> list[float]:
    from verl.utils.reward_score.sandbox_fusion import compute_score

    semaphore = threading.Semaphore(64)  # verl's reward.sandbox_fusion.max_concurrent
    truths = {name: ground_truth(tests, name) for name in ("sum", "evens")}

    def score(completion: Completion) -> float:
        value, _ = compute_score(
            f"{url}/run_code", semaphore, 1024, completion.text, truths[completion.problem],
            timeout=timeout,
        )  # fmt: skip
        return value

    with ThreadPoolExecutor(16) as pool:
        return list(pool.map(score, completions))


def warm_up(url: str, count: int = 64) -> None:
    """``count`` programs at once, so that the server's program pool has grown (as it has
    after a training step) before anything is timed."""
    body = {"code": "print(1)", "language": "python"}
    with ThreadPoolExecutor(count) as pool:
        list(
            pool.map(
                lambda _: requests.post(f"{url}/run_code", json=body, timeout=120), range(count)
            )
        )


def expected(name: str, completion: Completion) -> float:
    if name.startswith("verl"):
        return completion.passes / TESTS
    return 1.0 if completion.passes == TESTS else 0.0


def quality(name: str, completions, scores) -> dict[str, float]:
    correct = [s for c, s in zip(completions, scores, strict=True) if c.passes == TESTS]
    right = [abs(s - expected(name, c)) < 1e-9 for c, s in zip(completions, scores, strict=True)]
    loops = [s for c, s in zip(completions, scores, strict=True) if c.code in LOOPS.values()]
    return {
        "correct_scored_1": sum(s == 1.0 for s in correct) / len(correct),
        "scored_as_they_are": sum(right) / len(right),
        "loops_scored_0": sum(s == 0.0 for s in loops) / len(loops),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--completions", type=int, default=32, help="per problem")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--loop-share", type=float, default=0.1)
    parser.add_argument("--timeout", type=float, default=3.0, help="verl's run_timeout")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--seed", type=int, default=24)
    parser.add_argument("--json", help="write every figure here")
    args = parser.parse_args(argv)
    tests = make_tests(random.Random(args.seed))
    completions = with_loops(make_completions(args.completions, tests, args.seed), args.loop_share)
    cols = columns(completions, tests)
    workers = str(args.workers)
    servers = {
        "verl": Server(workers),
        "verl-programs=workers": Server(workers, "--programs", str(workers)),
    }
    reward = CodeReward(mode="binary", workers=args.workers, time_limit=args.timeout)
    runners = {
        name: (lambda server=server: run_verl(server.url, completions, tests, args.timeout))
        for name, server in servers.items()
    }
    runners["ours-in-process"] = lambda: call_ours(reward, completions, cols)
    rows: dict[str, list[float]] = {name: [] for name in STRATEGIES}
    scores: dict[str, list[dict[str, float]]] = {name: [] for name in STRATEGIES}
    try:
        for server in servers.values():
            warm_up(server.url)
        call_ours(reward, completions[:4], {k: v[:4] for k, v in cols.items()})
        for r in range(args.repeat):
            for name in STRATEGIES[r % 3 :] + STRATEGIES[: r % 3]:
                started = time.perf_counter()
                got = runners[name]()
                rows[name].append(time.perf_counter() - started)
                scores[name].append(quality(name, completions, got))
                time.sleep(2 * args.timeout + 10)  # requests verl gave up on: cut, not counted
        cancelled = {name: server.cancelled() for name, server in servers.items()}
    finally:
        reward.close()
        for server in servers.values():
            server.close()
    medians = {name: statistics.median(times) for name, times in rows.items()}
    library = medians["ours-in-process"]
    loops = sum(c.code in LOOPS.values() for c in completions)
    print(
        f"{len(completions)} completions x {TESTS} tests ({loops} looping to their "
        f"{args.timeout:g} s limit), {args.workers} workers, {args.repeat} round(s) (medians)"
    )
    print(
        f"{'strategy':22s} {'wall s':>8s} {'x in-process':>13s} {'correct=1.0':>12s} {'as they are':>12s}"
    )
    for name in STRATEGIES:
        share = statistics.median(q["correct_scored_1"] for q in scores[name])
        right = statistics.median(q["scored_as_they_are"] for q in scores[name])
        print(
            f"{name:22s} {medians[name]:8.2f} {medians[name] / library:12.2f}x "
            f"{share:12.1%} {right:12.1%}"
        )
    print(f"requests cancelled because verl's client gave up: {cancelled}")
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "args": vars(args),
                    "started": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
                    "completions": len(completions),
                    "looping": loops,
                    "rounds_s": rows,
                    "median_s": medians,
                    "over_in_process": {n: medians[n] / library for n in STRATEGIES},
                    "scores": scores,
                    "cancelled_requests": cancelled,
                },
                indent=1,
            )
            + "\n"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
