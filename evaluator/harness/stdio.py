"""stdin/stdout harness (LiveCodeBench ``testtype: "stdin"``): the program runs as
``__main__`` with the test's input on a real fd 0; its stdout is compared by a judge
(:mod:`evaluator.judges.stdout`)."""

from __future__ import annotations

from evaluator.problem import Problem
from evaluator.sandbox import Isolation, Job, Limits, Mode
from evaluator.sandbox.environments import Environment

from .job import tests_job


def build_job(
    problem: Problem, code: str, limits: Limits, isolation: Isolation, environment: Environment
) -> Job:
    return tests_job(
        problem,
        code,
        limits,
        isolation,
        environment,
        Mode.STDIN,
        preamble=environment.stdin_preamble,
    )
