"""Ray backend throughput: the local backend against Ray on 1 node x 2 CPUs and 2 nodes x 1 CPU.

All three run on this machine's cores, so the ratios measure the Ray backend's own overhead,
not extra hardware. The Ray clusters are real multi-node clusters (``ray.cluster_utils.Cluster``:
a head with no CPUs for the driver, worker nodes with their own raylet and object store,
on loopback); ``RayGrader`` places one actor per worker node, with a fork server per CPU.

Workloads (every result is checked against the local backend's verdicts):

* ``short``: ``--programs`` programs over 20 stdin problems of 10 tests (sum of a line of
  integers), 70% correct: each test is a few ms, so this is the per-program overhead.
* ``long``: the same count of programs whose tests each burn ~``--long-ms`` ms of CPU.
* ``large``: 32 programs of one problem whose tests total ``--large-mb`` MB (LiveCodeBench's
  largest private test sets are of this order), graded with the problem shared through the
  object store (the default) and with the whole record in every batch
  (``share_problems=False``): bytes the driver serialised per program.

Printed per run: seconds, programs/s, the ratio to the local backend, the driver's CPU per
program (``time.process_time`` of this process, the dispatcher thread included) and bytes
sent per program.

    python benchmarks/ray_throughput.py [--programs 300] [--long-ms 40] [--large-mb 20]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections.abc import Callable

os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
os.environ.setdefault("RAY_DISABLE_DOCKER_CPU_WARNING", "1")

from evaluator.problem import Harness, Problem, TestCase  # noqa: E402
from evaluator.runner import GradeOptions, Grader  # noqa: E402

OPTIONS = GradeOptions(time_limit=4, memory_limit=512)
GOOD = "print(sum(map(int, input().split())))"
BAD = "print(sum(map(int, input().split())) + 1)"
# ~1 ms of CPU per 30,000 loop steps on these cores; the input says how many
BURN = "n = int(input())\ns = 0\nfor i in range(n):\n    s += i\nprint(s)"
COUNT = "print(len(input()))"

Items = list[tuple[Problem, str | None]]


def short_workload(programs: int, seed: int = 0) -> Items:
    rng = random.Random(seed)
    pool = []
    for p in range(20):
        cases = []
        for _ in range(10):
            numbers = [rng.randint(-1000, 1000) for _ in range(rng.randint(1, 20))]
            cases.append(TestCase(" ".join(map(str, numbers)) + "\n", f"{sum(numbers)}\n"))
        pool.append(Problem(f"sum-{p}", Harness.STDIN, cases))
    return [(pool[i % 20], GOOD if rng.random() < 0.7 else BAD) for i in range(programs)]


def long_workload(programs: int, long_ms: float) -> Items:
    steps = int(30_000 * long_ms)
    cases = [
        TestCase(f"{steps + k}\n", f"{(steps + k) * (steps + k - 1) // 2}\n") for k in range(3)
    ]
    problems = [Problem(f"burn-{p}", Harness.STDIN, cases) for p in range(10)]
    return [(problems[i % 10], BURN) for i in range(programs)]


def large_workload(megabytes: float) -> Items:
    per_test = int(megabytes * (1 << 20) / 10)
    line = "x" * per_test
    cases = [TestCase(f"{line}{i}\n", f"{per_test + len(str(i))}\n") for i in range(10)]
    problem = Problem("large", Harness.STDIN, cases)
    return [(problem, COUNT)] * 32


def timed(grader, items: Items) -> tuple[float, float, list[str]]:
    """(wall seconds, driver CPU seconds, verdicts) of one grade_many, after a warm-up."""
    grader.grade_many(items[:4])
    cpu, start = time.process_time(), time.perf_counter()
    results = grader.grade_many(items)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    tests = [t.cpu_time for r in results for t in r.tests]
    TEST_CPU.append(sum(tests) / max(1, len(tests)))
    return wall, cpu, [str(r.verdict) for r in results]


TEST_CPU: list[float] = []  # mean CPU seconds per test of each timed run


def with_cluster(node_cpus: list[int], body: Callable[[], None]) -> None:
    """Run ``body`` with the driver connected to a fresh cluster of these worker nodes."""
    import ray
    from ray.cluster_utils import Cluster

    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0})
    for cpus in node_cpus:
        cluster.add_node(num_cpus=cpus)
    ray.init(address=cluster.address, include_dashboard=False, log_to_driver=False)
    try:
        body()
    finally:
        ray.shutdown()
        cluster.shutdown()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", type=int, default=300)
    parser.add_argument("--long-ms", type=float, default=40.0)
    parser.add_argument("--large-mb", type=float, default=20.0)
    args = parser.parse_args()

    from evaluator.backends.ray_backend import RayGrader

    workloads = {
        "short": short_workload(args.programs),
        "long": long_workload(args.programs // 3, args.long_ms),
    }
    rows: list[tuple[str, str, float, float, int, float]] = []
    expected: dict[str, list[str]] = {}
    with Grader(OPTIONS, workers=2) as local:
        for name, items in workloads.items():
            wall, cpu, expected[name] = timed(local, items)
            rows.append((name, "local (2 workers)", wall, cpu, len(items), 0.0))
            print(f"{name}: {len(items)} programs, {1000 * TEST_CPU[-1]:.1f} ms CPU per test")

    failures: list[str] = []
    large_bytes: dict[tuple[str, bool], float] = {}

    def run_ray(label: str) -> Callable[[], None]:
        def body() -> None:
            with RayGrader(OPTIONS) as grader:
                for name, items in workloads.items():
                    before = grader.bytes_sent
                    wall, cpu, got = timed(grader, items)
                    if got != expected[name]:
                        failures.append(f"{label} {name}: verdicts differ from the local backend")
                    sent = (grader.bytes_sent - before) / (len(items) + 4)
                    rows.append((name, label, wall, cpu, len(items), sent))
            items = large_workload(args.large_mb)
            for share in (True, False):
                with RayGrader(OPTIONS, batch_size=8, share_problems=share) as grader:
                    got = [str(r.verdict) for r in grader.grade_many(items)]
                    if got != ["AC"] * len(items):
                        failures.append(f"{label} large: {sorted(set(got))}")
                    large_bytes[(label, share)] = grader.bytes_sent / len(items)

        return body

    with_cluster([2], run_ray("ray, 1 node x 2 CPUs"))
    with_cluster([1, 1], run_ray("ray, 2 nodes x 1 CPU"))

    print(
        f"{'workload':<8} {'backend':<22} {'seconds':>8} {'programs/s':>11} {'vs local':>9}"
        f" {'driver CPU/program':>19} {'bytes/program':>14}"
    )
    base = {name: wall for name, label, wall, *_ in rows if label.startswith("local")}
    for name, label, wall, cpu, count, sent in rows:
        print(
            f"{name:<8} {label:<22} {wall:>8.2f} {count / wall:>11.1f} {base[name] / wall:>8.2f}x"
            f" {1000 * cpu / count:>16.2f} ms {sent:>14,.0f}"
        )
    print(
        f"\nlarge problem ({args.large_mb:g} MB of tests, 32 programs, batches of 8): "
        "bytes the driver sent per program"
    )
    for (label, share), sent in sorted(large_bytes.items()):
        print(f"  {label:<22} {'shared' if share else 'in every batch':<15} {sent:>14,.0f}")
    for label in {label for label, _ in large_bytes}:
        ratio = large_bytes[(label, False)] / large_bytes[(label, True)]
        print(f"  {label}: sharing sends {ratio:.1f}x fewer bytes")
    for failure in failures:
        print(failure, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
