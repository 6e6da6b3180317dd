"""Ray backend throughput: the local backend against 1 and 2 Ray actors, on this machine.

Workload: ``--programs`` programs (default 200) over ``--problems`` stdin problems of
``--tests`` tests each (default 10; sum of a line of integers): 70% correct, 30% wrong.
Every backend gets the same total number of fork servers (``--workers``, default the CPU
count): the local :class:`~evaluator.runner.Grader` with all of them, one Ray actor with all
of them, two Ray actors with half each. The local Ray cluster (loopback, no dashboard) is
started once before timing, and each Ray grader's actors are warm (pools started) before
its run is timed. Every result is checked against the local backend's verdicts.

    python benchmarks/ray_throughput.py [--programs 200] [--tests 10] [--workers 2]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time

os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")

from evaluator.problem import Harness, Problem, TestCase  # noqa: E402
from evaluator.runner import GradeOptions, Grader  # noqa: E402
from evaluator.sandbox import Isolation  # noqa: E402

GOOD = "print(sum(map(int, input().split())))"
BAD = "print(sum(map(int, input().split())) + 1)"


def workload(programs: int, problems: int, tests: int, seed: int = 0):
    rng = random.Random(seed)
    pool = []
    for p in range(problems):
        cases = []
        for _ in range(tests):
            numbers = [rng.randint(-1000, 1000) for _ in range(rng.randint(1, 20))]
            cases.append(TestCase(" ".join(map(str, numbers)) + "\n", f"{sum(numbers)}\n"))
        pool.append(Problem(f"sum-{p}", Harness.STDIN, cases))
    return [(pool[i % problems], GOOD if rng.random() < 0.7 else BAD) for i in range(programs)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", type=int, default=200)
    parser.add_argument("--problems", type=int, default=20)
    parser.add_argument("--tests", type=int, default=10)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--isolation", choices=[i.value for i in Isolation], default="test")
    args = parser.parse_args()

    import ray

    from evaluator.backends.ray_backend import RayGrader

    options = GradeOptions(time_limit=2, memory_limit=256, isolation=Isolation(args.isolation))
    items = workload(args.programs, args.problems, args.tests)
    units = args.programs * args.tests
    rows: list[tuple[str, float]] = []

    with Grader(options, workers=args.workers) as local:
        local.grade_many(items[:4])  # warm
        start = time.perf_counter()
        expected = [r.verdict for r in local.grade_many(items)]
        rows.append((f"local ({args.workers} workers)", time.perf_counter() - start))

    ray.init(
        address="local",
        num_cpus=args.workers,
        include_dashboard=False,
        log_to_driver=False,
        _node_ip_address="127.0.0.1",
    )
    try:
        for actors in (1, 2):
            per_actor = max(1, args.workers // actors)
            with RayGrader(
                options, actors=actors, workers_per_actor=per_actor, actor_num_cpus=0
            ) as remote:
                remote.grade_many(items[:4])  # warm
                start = time.perf_counter()
                got = [r.verdict for r in remote.grade_many(items)]
                elapsed = time.perf_counter() - start
            if got != expected:
                print(f"ray x{actors}: verdicts differ from the local backend", file=sys.stderr)
                return 1
            rows.append((f"ray, {actors} actor(s) x {per_actor} workers", elapsed))
    finally:
        ray.shutdown()

    base = rows[0][1]
    print(f"{args.programs} programs x {args.tests} tests, isolation={args.isolation}")
    print(f"{'backend':<30} {'seconds':>8} {'programs/s':>11} {'tests/s':>8} {'vs local':>9}")
    for name, seconds in rows:
        print(
            f"{name:<30} {seconds:>8.2f} {args.programs / seconds:>11.1f} "
            f"{units / seconds:>8.0f} {base / seconds:>8.2f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
