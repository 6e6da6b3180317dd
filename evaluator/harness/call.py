"""Call-based harness (LiveCodeBench ``testtype: "functional"``): ``input`` holds one JSON
value per line, one per argument; the function (a method of a fresh ``Solution()``, or a
top-level function) is called inside the sandbox and its return value serialised there by a
strict encoder. The comparison happens here, by :func:`evaluator.judges.compare_values`:
the candidate's objects never reach an ``==``."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from evaluator.judges import compare_values
from evaluator.problem import Problem, TestCase, Verdict
from evaluator.sandbox import Isolation, Job, Limits, Mode, RunResult
from evaluator.sandbox.environments import Environment

from .outcome import failure


def build_job(
    problem: Problem, code: str, limits: Limits, isolation: Isolation, environment: Environment
) -> Job:
    return Job(
        code=code,
        inputs=[t.input for t in problem.tests],
        mode=Mode.CALL,
        func_name=problem.func_name,
        limits=limits,
        isolation=isolation,
        environment=environment.overrides(),
    )


def _big_int(text: str) -> int:
    # Python refuses int(str) beyond 4,300 digits; Decimal has no such limit, nor has int(Decimal).
    return int(text) if len(text) <= 4000 else int(Decimal(text))


def loads(text: str) -> Any:
    """JSON as the sandbox's encoder writes it, integers of any size included."""
    return json.loads(text, parse_int=_big_int)


def judge(test: TestCase, run: RunResult, tolerance: dict[str, Any]) -> tuple[Verdict, str]:
    failed = failure(run)
    if failed is not None:
        return failed
    if run.status == "error" or run.value is None:  # e.g. returned a set or a custom object
        return Verdict.WA, run.exception or "no return value"
    try:
        expected = loads(test.output)
    except ValueError as exc:
        return Verdict.ERROR, f"expected output is not JSON: {exc}"
    try:
        actual = loads(run.value)
    except ValueError as exc:  # the strict encoder writes valid JSON: a harness bug
        return Verdict.ERROR, f"unreadable return value: {exc}"
    try:
        comparison = compare_values(actual, expected, **tolerance)
    except TypeError as exc:
        return Verdict.ERROR, f"expected output is not plain data: {exc}"
    return (Verdict.AC, "") if comparison.ok else (Verdict.WA, comparison.message)
