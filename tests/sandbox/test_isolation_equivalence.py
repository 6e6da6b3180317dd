"""What each isolation level promises, held on every program with a known verdict in the
vendored accuracy data (LiveCodeBench's O1 LeetCode and AtCoder programs, EvalPlus MBPP,
HumanEval canonical solutions and broken variants, DebugBench oracle/buggy pairs, the demo
set), graded under every level, all tests, no early exit:

- stdin programs: every level gives a plain run's verdicts, so all three agree test by test;
- call-based programs: ``adaptive`` and ``submission`` give the judge's (the module executed
  once, a fresh ``Solution()`` per test) and agree; ``test`` executes the module per test and
  differs from them only on a program whose state carries between tests: none of the vendored
  programs, and the constructed one below.

(The conformance suites and the adversarial battery are parametrised over every isolation
level in their own files.)"""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import pytest

from evaluator.datasets.convert import (
    Skipped,
    debugbench_pairs,
    leetcode_to_lcb,
    read_debugbench,
    read_leetcode,
)
from evaluator.formats import read_problems
from evaluator.formats.sources.humaneval import problem_from_humaneval
from evaluator.formats.sources.livecodebench import problem_from_lcb
from evaluator.harness.assertion import program as assertion_program
from evaluator.problem import Harness, Problem, TestCase
from evaluator.runner import GradeOptions, Grader
from evaluator.sandbox import Isolation
from tests.test_accuracy_smoke import MBPP, MBPP_MODEL, _load

DATA = Path(os.environ["MICROCODER_TEST_DATA"])


def _lcb_items():
    lcb = _load("lcb_o1")
    lcd = lcb.load_leetcodedataset()
    items = []
    for model in lcb.MODELS:
        for record in lcb.load_records(model):
            platform = record.get("platform")
            try:
                if platform == "leetcode":
                    problem = lcb.leetcode_problem(record, lcd)
                elif platform == "atcoder":
                    problem = lcb.atcoder_problem(record, "lines")
                else:
                    continue
            except Exception:  # noqa: BLE001 - records the benchmark itself cannot convert
                continue
            if problem.tests:
                items.append((problem, record["code_list"][0]))
    return items


def _mbpp_items(pool):
    mbpp = _load("evalplus_mbpp")
    tasks = mbpp.load_tasks()
    path = next(
        p
        for p in sorted((DATA / "evalplus").glob("inferenced_output_mbpp_*"))
        if mbpp.model_name(str(p)) == MBPP_MODEL
    )
    evaluated = json.loads(path.read_text())["eval"]
    expected = mbpp.expected_outputs(pool, tasks, MBPP, 5.0)
    items = []
    for task_id in MBPP:
        problem = mbpp.build_problem(tasks[task_id], expected[task_id])
        for entry in evaluated[task_id]:
            code = mbpp.with_oracle(entry["solution"], tasks[task_id]["entry_point"])[0]
            items.append((problem, code))
    return items


def _humaneval_items():
    items = []
    with gzip.open(DATA / "human_eval" / "HumanEval.jsonl.gz", "rt", encoding="utf-8") as file:
        for line in file:
            raw = json.loads(line)
            problem = problem_from_humaneval(raw)
            right = raw["canonical_solution"]
            wrong = right.replace("return", "return None and", 1)
            for body in (right, wrong, "    raise SystemExit(0)\n"):
                items.append((problem, assertion_program(problem, body, True)))
    return items


def _debugbench_items():
    by_slug = {}
    for raw in read_leetcode(DATA / "leetcodedataset" / "v0.2.0-train.jsonl.gz"):
        try:
            record = leetcode_to_lcb(raw)
        except Skipped:
            continue
        by_slug[record["question_id"]] = record
    items = []
    for pair in debugbench_pairs(read_debugbench(DATA / "debugbench"), set(by_slug)):
        problem = problem_from_lcb(by_slug[pair.slug])
        items += [(problem, pair.oracle), (problem, pair.buggy)]
    return items


def _demo_items():
    """The bundled demo set: programs of every verdict (evaluator/data)."""
    data = Path(__file__).resolve().parents[2] / "evaluator" / "data"
    problems = {p.id: p for p in read_problems(data / "demo_problems.jsonl")}
    items = []
    for line in (data / "demo_samples.jsonl").read_text().splitlines():
        record = json.loads(line)
        items += [(problems[record["question_id"]], code) for code in record["code_list"]]
    return items


@pytest.fixture(scope="module")
def items(pool):
    found = _lcb_items() + _mbpp_items(pool) + _humaneval_items() + _debugbench_items()
    found += _demo_items()
    assert len(found) >= 60
    return found


def _verdicts(pool, items, isolation):
    grader = Grader(GradeOptions(time_limit=6.0, isolation=isolation), pool=pool)
    return [
        (str(result.verdict), [str(test.verdict) for test in result.tests])
        for result in grader.grade_many(items)
    ]


def test_each_level_gives_what_it_promises(pool, items):
    verdicts = {level: _verdicts(pool, items, level) for level in Isolation}
    differ: dict[str, list] = {"stdin": [], "judge rule": [], "test vs module once": []}
    for index, (problem, _) in enumerate(items):
        test, adaptive, submission = (
            verdicts[level][index]
            for level in (Isolation.TEST, Isolation.ADAPTIVE, Isolation.SUBMISSION)
        )
        if problem.harness is Harness.STDIN:
            if not test == adaptive == submission:
                differ["stdin"].append((problem.id, test, adaptive, submission))
        else:
            if adaptive != submission:
                differ["judge rule"].append((problem.id, adaptive, submission))
            if test != adaptive:
                differ["test vs module once"].append((problem.id, test, adaptive))
    assert differ == {"stdin": [], "judge rule": [], "test vs module once": []}
    assert {verdict for verdict, _ in verdicts[Isolation.TEST]} >= {"AC", "WA"}  # both ways
    assert {p.harness for p, _ in items} >= {Harness.STDIN, Harness.FUNCTIONAL}


def test_a_program_that_carries_state_is_where_the_levels_differ(pool):
    """A class-level list that keeps growing: the judge (module once) fails its second test,
    as LeetCode does; ``test`` isolation executes the module afresh and passes both."""
    code = "class Solution:\n    seen = []\n    def count(self, x):\n        self.seen.append(x)\n        return len(self.seen)\n"
    problem = Problem(
        "grows", Harness.FUNCTIONAL, [TestCase("0", "1"), TestCase("0", "1")], func_name="count"
    )
    verdicts = {level: _verdicts(pool, [(problem, code)], level)[0] for level in Isolation}
    assert verdicts[Isolation.TEST] == ("AC", ["AC", "AC"])
    assert verdicts[Isolation.ADAPTIVE] == verdicts[Isolation.SUBMISSION] == ("WA", ["AC", "WA"])
