"""The sandbox side of a total grader (issue 16): nothing in a job (lone surrogates in code or
inputs, values nested hundreds of thousands deep in arguments or results) stops a fork server
or is blamed on the wrong party."""

from __future__ import annotations

from evaluator.harness.conventions import LEETCODE_CALL
from evaluator.problem import Harness, Problem, TestCase, Verdict
from evaluator.runner import GradeOptions, Grader
from evaluator.sandbox import Job, Mode

DEEP = 300_000
NEST = f"def f():\n    x = []\n    for _ in range({DEEP}):\n        x = [x]\n    return x\n"


def test_lone_surrogates_in_inputs_and_code_cost_no_server(pool):
    before = pool.restarts
    echo = pool.run(Job(code="print(input())", inputs=["\ud800\n", "ok\n"])).runs
    assert [run.status for run in echo] == ["ok", "ok"]
    assert echo[0].stdout == b"\xed\xa0\x80\n"  # the CESU bytes, read back as they came
    assert echo[1].stdout == b"ok\n"
    broken = pool.run(Job(code="print('\ud800')\n", inputs=[""])).runs[0]
    assert broken.status == "compile" and b"surrogates not allowed" in broken.stderr
    call = pool.run(
        Job(
            code="def f(s):\n    return len(s)\n",
            inputs=['"\\ud800"'],
            mode=Mode.CALL,
            **LEETCODE_CALL,
            func_name="f",
        )
    ).runs[0]
    assert call.status == "ok" and call.value == "1"
    assert pool.restarts == before


def test_deeply_nested_results_and_arguments_are_judged(pool):
    grader = Grader(GradeOptions(time_limit=10.0), pool=pool)
    expected = "[" * (DEEP + 1) + "]" * (DEEP + 1)
    deep = Problem("deep", Harness.FUNCTIONAL, [TestCase("", expected)], func_name="f")
    assert grader.grade(deep, NEST).verdict is Verdict.AC
    shallower = Problem("deep", Harness.FUNCTIONAL, [TestCase("", expected[1:-1])], func_name="f")
    assert grader.grade(shallower, NEST).verdict is Verdict.WA
    depth = "def f(x):\n    n = 0\n    while x:\n        x, n = x[0], n + 1\n    return n\n"
    argument = "[" * 5000 + "]" * 5000
    nested_input = Problem("arg", Harness.FUNCTIONAL, [TestCase(argument, "4999")], func_name="f")
    assert grader.grade(nested_input, depth).verdict is Verdict.AC
