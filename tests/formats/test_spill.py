"""Tests kept on disk (``formats/spill.py``): a problem read back from its spill is the same
problem, and a run over spilled problems grades as over problems in memory."""

from __future__ import annotations

import dataclasses
import pickle

from evaluator.formats import read_problems
from evaluator.formats.problems import spill_beyond
from evaluator.formats.spill import SpilledTests, TestSpill
from evaluator.problem import Harness, Problem, TestCase
from evaluator.runner import Grader

TESTS = [TestCase("1 2\n", "3\n"), TestCase("\ud800 é\n" * 3, ""), TestCase("", "x" * 10_000)]


def test_spilled_tests_read_back_equal_to_the_list():
    spill = TestSpill()
    stored = spill.store(TESTS)
    assert isinstance(stored, SpilledTests) and len(stored) == 3
    assert stored == TESTS and list(stored) == TESTS
    assert stored[1] == TESTS[1] and stored[-1] == TESTS[-1] and stored[1:] == TESTS[1:]
    assert stored != TESTS[:2] and stored != [*TESTS[:2], TestCase("", "y")]
    assert pickle.loads(pickle.dumps(stored)) == TESTS  # a list across a process boundary
    spill.close()


def test_problems_past_the_budget_keep_their_tests_on_disk():
    problems = [Problem(str(i), Harness.STDIN, list(TESTS)) for i in range(4)]
    size = sum(len(t.input) + len(t.output) for t in TESTS)
    kept = list(spill_beyond([dataclasses.replace(p) for p in problems], 2 * size))
    assert [type(p.tests) is list for p in kept] == [True, True, False, False]
    assert kept == problems


def test_a_spilled_problem_grades_as_the_one_in_memory(tmp_path, write_jsonl, pool):
    tests = [{"input": f"{i} {i}\n", "output": f"{2 * i}\n"} for i in range(5)]
    path = write_jsonl(tmp_path / "p.jsonl", [{"id": "add", "harness": "stdin", "tests": tests}])
    [in_memory] = read_problems(path)
    [spilled] = read_problems(path, tests_in_memory=0)
    assert isinstance(spilled.tests, SpilledTests) and spilled == in_memory
    grader = Grader(pool=pool)
    for code, passes in (
        ("a, b = map(int, input().split())\nprint(a + b)", True),
        ("print(0)", False),
    ):
        results = [grader.grade(p, code) for p in (in_memory, spilled)]
        assert [r.passed for r in results] == [passes, passes]
        assert [t.verdict for t in results[0].tests] == [t.verdict for t in results[1].tests]
