"""stdin/stdout harness (LiveCodeBench ``testtype: "stdin"``): the program runs as
``__main__`` with the test's input on a real fd 0; its stdout is compared by a judge
(:mod:`evaluator.judges.stdout`)."""

from __future__ import annotations

from evaluator.problem import Problem
from evaluator.sandbox import Isolation, Job, Limits, Mode
from evaluator.sandbox.environments import Environment


def build_job(
    problem: Problem, code: str, limits: Limits, isolation: Isolation, environment: Environment
) -> Job:
    return Job(
        code=code,
        inputs=[t.input for t in problem.tests],
        mode=Mode.STDIN,
        limits=limits,
        isolation=isolation,
        preamble=environment.stdin_preamble,
        environment=environment.overrides(),
    )
