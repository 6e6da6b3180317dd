"""Each program is graded apart, in the library too: a problem or an output that breaks
something in the grader is that program's ERROR with the reason, and ``grade_many`` returns
every result in order. Real sandbox (the session ``pool``)."""

from __future__ import annotations

import re

from fuzz_inputs import ANY_TEXT
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evaluator.problem import Harness, Problem, TestCase, Verdict
from evaluator.runner import GradeOptions, Grader


def _grader(pool, time_limit: float = 2.0) -> Grader:
    return Grader(GradeOptions(time_limit=time_limit), pool=pool)


def test_grade_many_returns_every_result_whatever_breaks(pool):
    items = [
        (Problem("judge-breaks", Harness.STDIN, [TestCase("", None)]), "print(1)"),  # type: ignore[arg-type]
        (Problem("fine", Harness.STDIN, [TestCase("", "1\n")]), "print(1)"),
        (
            Problem("tolerance", Harness.FUNCTIONAL, [TestCase("", "1")], "f", {"rel_tol": "x"}),
            "def f():\n    return 1\n",
        ),
        (Problem("not-text", Harness.STDIN, [TestCase("\udfff", "1")]), "print(1)"),
        (
            Problem("deep", Harness.FUNCTIONAL, [TestCase("", "[]")], "f"),
            "def f():\n    x = []\n    for _ in range(300000):\n        x = [x]\n    return x\n",
        ),
    ]
    # the deep value costs ~0.5 s of CPU to build and encode: room for a slow, busy machine
    results = _grader(pool, time_limit=6.0).grade_many(items)
    assert [r.problem_id for r in results] == [p.id for p, _ in items]
    assert [r.verdict for r in results] == [
        Verdict.ERROR,
        Verdict.AC,
        Verdict.ERROR,
        Verdict.ERROR,
        Verdict.WA,
    ]
    assert re.fullmatch(  # it ran (a reward scores it 0.0), and the message says where
        r"the grader failed on this test: AttributeError: .* \((?:tokens|base)\.py:\d+\)",
        results[0].tests[0].message,
    )
    assert "rel_tol" in results[2].message and not results[2].tests  # nothing ran
    assert "lone surrogate" in results[3].message
    assert all(len(r.message) <= 300 for r in results)


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    code=st.one_of(ANY_TEXT, st.sampled_from(["print(input())", "import sys\nsys.exit(3)"])),
    test_input=ANY_TEXT,
    expected=ANY_TEXT,
)
def test_any_program_and_texts_get_a_result(pool, code, test_input, expected):
    problem = Problem("p", Harness.STDIN, [TestCase(test_input, expected)])
    result = _grader(pool).grade(problem, code)
    assert isinstance(result.verdict, Verdict)
    data = result.to_dict()
    assert len(data.get("message", "")) <= 300 * 6
    for test in data["tests"]:
        test.get("message", "").encode("utf-8")  # writable as it is
