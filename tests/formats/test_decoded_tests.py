"""``DecodedTests.problem`` (evaluator/formats/testlists.py): the one place a source's decoded
tests become a ``Problem``, and the rule it applies to the judge (the record's own over the
source's)."""

from __future__ import annotations

from evaluator.formats.source_rules import STDIN_JUDGE, contest_judge, pi_judge
from evaluator.formats.testlists import DecodedTests, io_tests
from evaluator.problem import Harness, Problem, TestCase


def test_the_problem_carries_the_tests_and_the_readers_facts():
    decoded = DecodedTests(Harness.FUNCTIONAL, [TestCase("1", "2")], "f", wrapped=True)
    problem = decoded.problem(
        "p", time_limit=2.0, memory_limit=64, metadata={"platform": "x"}, output_arg=0
    )
    assert problem == Problem(
        id="p",
        harness=Harness.FUNCTIONAL,
        tests=[TestCase("1", "2")],
        func_name="f",
        time_limit=2.0,
        memory_limit=64,
        metadata={"platform": "x"},
        output_arg=0,
    )


def test_the_records_judge_wins_over_the_sources_rule():
    decoded = io_tests({"inputs": ["1\n"], "outputs": ["2\n"]}, "tests")
    assert decoded.problem("p", rule=contest_judge).judge == STDIN_JUDGE
    assert decoded.problem("p", judge="lines", rule=contest_judge).judge == "lines"
    assert decoded.problem("p").judge is None  # no rule: the harness's default


def test_the_shared_rules():
    calls = io_tests({"inputs": [[1]], "outputs": [[2]], "fn_name": "f"}, "tests")
    assert calls.wrapped
    assert contest_judge(calls) == {"unwrap": True}
    assert contest_judge(calls, codewars=True) == {"unwrap": True, "bool_as_int": True}
    assert pi_judge(calls) is None
    stdin = DecodedTests(Harness.STDIN, [])
    assert pi_judge(stdin) == contest_judge(stdin) == {"type": "float"}
    assert pi_judge(stdin) is not STDIN_JUDGE  # a copy: a problem's judge is its own
