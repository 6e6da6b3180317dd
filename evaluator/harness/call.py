"""Call-based harness (LiveCodeBench ``testtype: "functional"``): ``input`` holds one JSON
value per line, one per argument; the function (a method of a fresh ``Solution()``, or a
top-level function) is called inside the sandbox and its return value (or, for an in-place
problem, its ``output_arg`` argument after the call) serialised there by a strict encoder.
LeetCode's convention (the class, the names found without an import) travels in the job as
data (:mod:`evaluator.harness.conventions`). The comparison is a judge's:
:mod:`evaluator.judges.returned`."""

from __future__ import annotations

from evaluator.harness.environments import Environment
from evaluator.problem import Problem
from evaluator.sandbox import Isolation, Job, Limits, Mode

from .conventions import LEETCODE_CALL
from .tests_job import tests_job


def build_job(
    problem: Problem, code: str, limits: Limits, isolation: Isolation, environment: Environment
) -> Job:
    return tests_job(
        problem,
        code,
        limits,
        isolation,
        environment,
        Mode.CALL,
        func_name=problem.func_name,
        output_arg=problem.output_arg,
        **LEETCODE_CALL,
    )
