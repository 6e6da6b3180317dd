"""Original C++ solutions of the demo set's stdin problems, each graded for real (build,
sandbox, judge) with the verdict it was written for (``demo_solutions.toml``)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from evaluator.data import DEMO_PROBLEMS
from evaluator.formats import read_problems
from evaluator.problem import Verdict
from evaluator.runner import GradeOptions, Grader

SOLUTIONS = tomllib.loads(Path(__file__).with_name("demo_solutions.toml").read_text())
OPTIONS = GradeOptions(time_limit=1.0, memory_limit=256)


@pytest.fixture(scope="module")
def results(pool):
    problems = {problem.id: problem for problem in read_problems(DEMO_PROBLEMS)}
    items = [(problems[s["problem"]], s["source"], "cpp") for s in SOLUTIONS.values()]
    with Grader(OPTIONS, pool=pool) as grader:
        graded = grader.grade_many(items)
    return dict(zip(SOLUTIONS, graded, strict=True))


def test_every_verdict_a_cpp_program_can_get_is_shown():
    assert {s["verdict"] for s in SOLUTIONS.values()} == {"AC", "WA", "TLE", "MLE", "RE", "CE"}
    stdin_problems = {p.id for p in read_problems(DEMO_PROBLEMS) if p.harness == "stdin"}
    assert {s["problem"] for s in SOLUTIONS.values()} == stdin_problems


@pytest.mark.parametrize("name", list(SOLUTIONS))
def test_solution_gets_its_verdict(results, name):
    solution, result = SOLUTIONS[name], results[name]
    assert result.verdict == Verdict(solution["verdict"]), (solution["what"], result.to_dict())
