"""The Ray backend against the local one: same results, no loss when an actor dies, ERROR
with the reason when retries run out. One local Ray cluster for the module (conftest)."""

from __future__ import annotations

import os
import re
import sys
import threading

import pytest

from evaluator.backends.ray_backend import GradingActor, RayGrader
from evaluator.problem import Harness, Problem, TestCase, Verdict
from evaluator.runner import GradeOptions, Grader

OPTIONS = GradeOptions(time_limit=1, memory_limit=256)

REV = Problem(
    "rev", Harness.STDIN, [TestCase("abc\n", "cba\n"), TestCase("xy\n", "yx\n")], time_limit=1
)
ADD = Problem(
    "add",
    Harness.FUNCTIONAL,
    [TestCase("1\n2", "3"), TestCase("[5]\n[6]", "[5, 6]")],
    func_name="add",
)
EMPTY = Problem("empty", Harness.STDIN, [])
SPIN = Problem("spin", Harness.STDIN, [TestCase("", "")], time_limit=0.5)

MIXED = [
    (REV, "print(input()[::-1])"),  # AC
    (ADD, "def add(a, b):\n    return a + b\n"),  # AC
    (REV, "print(input())"),  # WA
    (ADD, "def add(a, b):\n    return 0\n"),  # WA
    (REV, "raise ValueError('boom')"),  # RE
    (ADD, "def add(a, b):\n    return a / 0\n"),  # RE
    (REV, None),  # no code: WA
    (EMPTY, "print(1)"),  # zero tests: ERROR
    (ADD, "class Solution:\n    def add(self, a, b):\n        return a + b\n"),
    (REV, "s = input()\nprint(s[::-1] if s != 'xy' else 'no')"),  # WA on test 2
] * 2 + [(SPIN, "while True:\n    pass\n")]  # TLE


def _plain(result):
    """``to_dict()`` without timings, plus the problem id."""
    data = result.to_dict()
    for part in [data, *data["tests"]]:
        for key in ("cpu_time", "wall_time", "peak_memory_kb"):
            part.pop(key, None)
        if "message" in part:  # a TLE message quotes the measured times
            part["message"] = re.sub(r"\d+\.\d+", "#", part["message"])
    return result.problem_id, data


def test_same_results_as_local(ray_cluster):
    with Grader(OPTIONS, workers=2) as local:
        expected = [_plain(r) for r in local.grade_many(MIXED)]
    verdicts = {d["verdict"] for _, d in expected}
    assert {"AC", "WA", "TLE", "RE", "ERROR"} <= verdicts

    seen = []
    lock = threading.Lock()

    def progress(result):
        with lock:
            seen.append(result.problem_id)

    with RayGrader(OPTIONS, actors=2, workers_per_actor=1, batch_size=3) as remote:
        assert len(remote.actors) == 2
        assert all(info["workers"] == 1 for info in remote.actor_info)
        assert remote.capacity == 2 and "landlock_abi" in remote.sandbox_info
        got = remote.grade_many((item for item in MIXED), progress=progress)  # a generator
        # ordered streaming with a tiny window: the same results, read lazily
        remote.max_pending = 3
        streamed = list(remote.imap(iter(MIXED[:6])))
        one = remote.grade(REV, "print(input()[::-1])")
    assert [_plain(r) for r in got] == expected
    assert [_plain(r) for r in streamed] == expected[:6]
    assert one.verdict is Verdict.AC
    assert sorted(seen) == sorted(p.id for p, _ in MIXED)
    assert all(t.cpu_time > 0 for t in got[0].tests)  # exact timings come back


SLOW_OK = "import time\ntime.sleep(0.15)\nprint(input()[::-1])"
SLOW_WA = "import time\ntime.sleep(0.15)\nprint(input())"


def test_actor_killed_mid_run_loses_nothing(ray_cluster):
    items = [(REV, SLOW_OK if i % 3 else SLOW_WA) for i in range(24)]
    expected = [Verdict.AC if i % 3 else Verdict.WA for i in range(24)]
    killed = threading.Event()
    with RayGrader(OPTIONS, actors=2, workers_per_actor=1, batch_size=2, max_in_flight=8) as remote:
        victim = remote.actors[0]

        def progress(result):
            if not killed.is_set():
                killed.set()
                ray_cluster.kill(victim, no_restart=True)  # batches are in flight on it

        results = remote.grade_many(items, progress=progress)
        assert killed.is_set()
        assert remote.retried_batches >= 1
        assert remote.replacements >= 1
        assert remote.failed_batches == 0
    assert len(results) == len(items)
    assert [r.verdict for r in results] == expected
    assert all(len(r.tests) == 2 and r.problem_id == "rev" for r in results)


class DyingActor(GradingActor):
    """An actor whose process dies on every batch."""

    async def grade_batch(self, problem, codes):
        os._exit(1)


def test_retries_exhausted_give_error_with_reason(ray_cluster):
    ray_cluster.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    items = [(REV, "print(input()[::-1])")] * 3
    with RayGrader(
        OPTIONS, actors=1, workers_per_actor=1, max_retries=1, batch_size=8, actor_cls=DyingActor
    ) as remote:
        results = remote.grade_many(items)
        assert remote.failed_batches == 1
        assert remote.retried_batches == 1
    assert [r.verdict for r in results] == [Verdict.ERROR] * 3
    for result in results:
        assert result.problem_id == "rev" and not result.passed
        assert "not graded after 2 tries" in result.message
        assert "actor died" in result.message


def test_closed_grader_refuses_work(ray_cluster):
    remote = RayGrader(OPTIONS, actors=1, workers_per_actor=1)
    remote.close()
    with pytest.raises(RuntimeError):
        remote.submit(REV, "print(1)")


def test_cli_grade_with_ray_backend_matches_local(ray_cluster, tmp_path):
    import json

    from click.testing import CliRunner

    from evaluator.cli import main

    tests = json.dumps([{"input": "2 3\n", "output": "5\n", "testtype": "stdin"}])
    problems = tmp_path / "p.jsonl"
    problems.write_text(
        "\n".join(
            json.dumps({"question_id": q, "public_test_cases": tests, "metadata": "{}"})
            for q in ("a", "b")
        )
    )
    samples = tmp_path / "s.jsonl"
    codes = ["print(sum(map(int, input().split())))", "print(6)"]
    samples.write_text(
        "\n".join(json.dumps({"question_id": q, "code_list": codes}) for q in ("a", "b"))
    )
    outputs = {}
    for backend in ("local", "ray"):
        out = tmp_path / f"{backend}.json"
        args = ["grade", "--problems", str(problems), "--samples", str(samples), "-o", str(out)]
        result = CliRunner().invoke(main, [*args, "--backend", backend, "--quiet"])
        assert result.exit_code == 0, result.output
        outputs[backend] = [
            (r["question_id"], r["graded_list"]) for r in json.loads(out.read_text())
        ]
    assert outputs["ray"] == outputs["local"] == [("a", [True, False]), ("b", [True, False])]


def test_code_reward_on_ray(ray_cluster):
    import json

    from evaluator.reward import CodeReward

    tests = json.dumps([{"input": "4\n", "output": "16\n", "testtype": "stdin"}])
    completions = [
        "```python\nprint(int(input()) ** 2)\n```",
        "```python\nprint(4)\n```",
        "no code",
    ]
    with CodeReward(backend="ray", ray_options={"actors": 1, "workers_per_actor": 1}) as reward:
        rewards = reward(
            prompts=["p"] * 3,
            completions=completions,
            public_test_cases=[tests] * 3,
            question_id=["sq"] * 3,
        )
    assert rewards == [1.0, 0.0, 0.0]
    assert reward.last_verdicts == ["AC", "WA", "NO_CODE"]
