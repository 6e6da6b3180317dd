"""The Ray backend across nodes (issue 18): a real multi-node cluster on this machine (Ray's
own ``ray.cluster_utils.Cluster``: a head without CPUs and worker nodes on loopback, each
with its own raylet and object store). Actors land on different nodes and give the local
backend's results; a worker node removed mid-run costs no verdict; a problem with tens of MB
of tests reaches each node once."""

from __future__ import annotations

import os
import re
import threading

import pytest

os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
os.environ.setdefault("RAY_DISABLE_DOCKER_CPU_WARNING", "1")

import ray  # noqa: E402 - after the environment above
from ray.cluster_utils import Cluster  # noqa: E402

from evaluator.backends.ray_backend import RayGrader  # noqa: E402
from evaluator.problem import Harness, Problem, TestCase  # noqa: E402
from evaluator.runner import GradeOptions, Grader  # noqa: E402

OPTIONS = GradeOptions(time_limit=2, memory_limit=256)
CHECKER = """
def check(input_text, output, expected):
    n = int(input_text)
    a, b = map(int, output.split())
    return 1 < a <= b and a * b == n, f"{a} * {b}"
"""

STDIN = Problem("rev", Harness.STDIN, [TestCase("abc\n", "cba\n"), TestCase("xy\n", "yx\n")])
CALL = Problem(
    "add",
    Harness.FUNCTIONAL,
    [TestCase("1\n2", "3"), TestCase("[5]\n[6]", "[5, 6]")],
    func_name="add",
)
ASSERTION = Problem(
    "double",
    Harness.ASSERTION,
    [TestCase("", "")],
    prompt="def double(x):\n",
    test_code="def check(candidate):\n    assert candidate(2) == 4\n    assert candidate(-1) == -2\n",
    entry_point="double",
)
PAIRS = Problem(
    "pairs",
    Harness.STDIN,
    [TestCase("12\n", "2 6\n"), TestCase("35\n", "5 7\n")],
    judge={"type": "python", "code": CHECKER},
)

SUITE = [
    (STDIN, "print(input()[::-1])"),
    (STDIN, "print(input())"),
    (STDIN, "raise ValueError('boom')"),
    (CALL, "def add(a, b):\n    return a + b\n"),
    (CALL, "class Solution:\n    def add(self, a, b):\n        return b + a\n"),
    (CALL, "def add(a, b):\n    return 0\n"),
    (ASSERTION, "    return 2 * x\n"),
    (ASSERTION, "    return x + 2\n"),
    (
        PAIRS,
        "n = int(input())\na = max(d for d in range(2, n) if n % d == 0 and d * d <= n)\nprint(a, n // a)",
    ),
    (PAIRS, "n = int(input())\nprint(1, n)"),
]


def _plain(result):
    """``to_dict()`` without timings, plus the problem id."""
    data = result.to_dict()
    for part in [data, *data["tests"]]:
        for key in ("cpu_time", "wall_time", "peak_memory_kb"):
            part.pop(key, None)
        if "message" in part:
            part["message"] = re.sub(r"\d+\.\d+", "#", part["message"])
    return result.problem_id, data


@pytest.fixture(scope="module")
def cluster():
    """A head with no CPUs (the driver's) and two worker nodes of one CPU each."""
    made = Cluster(initialize_head=True, head_node_args={"num_cpus": 0})
    workers = [made.add_node(num_cpus=1) for _ in range(2)]
    ray.init(address=made.address, include_dashboard=False, log_to_driver=False)
    try:
        yield made, workers
    finally:
        ray.shutdown()
        made.shutdown()


def _local(items):
    with Grader(OPTIONS, workers=2) as local:
        return [_plain(r) for r in local.grade_many(items)]


def test_actors_on_two_nodes_give_the_local_results(cluster):
    expected = _local(SUITE)
    assert {d["verdict"] for _, d in expected} >= {"AC", "WA", "RE"}
    with RayGrader(OPTIONS, workers_per_actor=1, actor_num_cpus=0.5) as grader:
        nodes = {info["node_id"] for info in grader.actor_info}
        assert len(grader.actor_info) == 2  # none for the head, which has no CPU
        got = [_plain(r) for r in grader.grade_many(SUITE * 3)]
    assert len(nodes) == 2  # one actor on each worker node (the head has no CPU for one)
    assert got == expected * 3


@pytest.mark.parametrize("actor_cpus", [0.5, 1.0], ids=["room-left", "no-room-left"])
def test_a_node_lost_mid_run_loses_no_verdict(cluster, actor_cpus):
    """A few hundred programs; a worker node is removed once a third of them are done: every
    program still gets the undisturbed run's verdict, and the counters say what was retried.
    With a whole node's CPU per actor the replacement finds no room: it must hold no work."""
    made, workers = cluster
    items = (SUITE * 30)[:300]
    expected = _local(items)
    done = threading.Event()
    seen = [0]

    def progress(_result):
        seen[0] += 1
        if seen[0] == 100:
            done.set()

    with RayGrader(OPTIONS, workers_per_actor=1, actor_num_cpus=actor_cpus, batch_size=4) as grader:
        assert len({info["node_id"] for info in grader.actor_info}) == 2
        victim = workers.pop(0)
        killer = threading.Thread(target=lambda: (done.wait(120), made.remove_node(victim)))
        killer.start()
        got = [_plain(r) for r in grader.grade_many(items, progress=progress)]
        killer.join()
        retried, replaced = grader.retried_batches, grader.replacements
        failed = grader.failed_batches
    workers.append(made.add_node(num_cpus=1))  # the module's later tests get two nodes again
    assert got == expected  # none lost, none twice (grade_many returns one per input, in order)
    assert retried >= 1 and replaced >= 1 and failed == 0, (retried, replaced, failed)


def test_a_large_problem_reaches_each_node_once(cluster):
    """A problem whose tests are ~24 MB, 64 programs in batches of 8: shared through the object
    store the driver serialises it once (not once per batch) and each actor decodes it once."""
    line = "x" * (2 << 20)
    big = Problem(
        "big",
        Harness.STDIN,
        [TestCase(f"{line}{i}\n", f"{len(line) + len(str(i))}\n") for i in range(12)],
    )
    programs = [(big, "print(len(input()))")] * 56 + [(big, "print(0)")] * 8
    sent = {}
    for share in (False, True):
        with RayGrader(
            OPTIONS, workers_per_actor=1, actor_num_cpus=0.5, batch_size=8, share_problems=share
        ) as grader:
            verdicts = [str(r.verdict) for r in grader.grade_many(programs)]
            sent[share] = grader.bytes_sent
            decoded = ray.get([actor.info.remote() for actor in grader.actors])
        assert verdicts == ["AC"] * 56 + ["WA"] * 8
        if share:
            assert sum(info["problems_decoded"] for info in decoded) <= len(decoded)
    per_program = {share: sent[share] / len(programs) for share in sent}
    assert per_program[True] * 4 < per_program[False], per_program
