"""C++ threads through the grader at every isolation level (issue 45, item 6): 16 and 64
threads, each recursing modestly, are AC with the plain run's answer; the main thread's deep
recursion keeps its stack (the conformance case ``deep_recursion_dfs``)."""

from __future__ import annotations

import tempfile

import pytest

from evaluator.problem import Harness, Problem, TestCase, Verdict
from evaluator.runner import GradeOptions, Grader
from evaluator.sandbox import Isolation
from tests.cpp.plain import build_plain, load_cases, run_binary

CASES = {case.name: case for case in load_cases()}
NAMES = ["threads_16_recursing", "threads_64_recursing", "deep_recursion_dfs"]


def _plain_answer(name: str) -> TestCase:
    """The test: the case's input and what its plain run prints (it must run cleanly)."""
    case = CASES[name]
    with tempfile.TemporaryDirectory() as where:
        assert build_plain(case.source, where)[0]
        run = run_binary(where, case.stdin)
    assert run.status == "ok" and run.limit is None, run
    return TestCase(case.stdin.decode(), run.stdout.decode())


@pytest.fixture(scope="module")
def answers():
    return {name: _plain_answer(name) for name in NAMES}


@pytest.mark.parametrize("isolation", list(Isolation))
def test_threads_and_deep_recursion_are_accepted(pool, answers, isolation):
    options = GradeOptions(time_limit=2.0, memory_limit=256, isolation=isolation)
    with Grader(options, pool=pool, precompiled_headers=False) as grader:
        for name in NAMES:
            problem = Problem(name, Harness.STDIN, [answers[name]])
            result = grader.grade(problem, CASES[name].source, "cpp")
            assert result.verdict is Verdict.AC, (name, result)
