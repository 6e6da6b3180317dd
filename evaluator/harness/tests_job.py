"""The job of a problem whose tests are its inputs (stdin and call-based harnesses)."""

from __future__ import annotations

from typing import Any

from evaluator.harness.environments import Environment
from evaluator.problem import Problem
from evaluator.sandbox import Isolation, Job, Limits, Mode


def tests_job(
    problem: Problem,
    code: str,
    limits: Limits,
    isolation: Isolation,
    environment: Environment,
    mode: Mode,
    **fields: Any,
) -> Job:
    """One job running ``code`` on every test's input under the problem's limits, isolation
    and environment; ``fields`` are the harness's own (``func_name``, ``names``...)."""
    return Job(
        code=code,
        inputs=[t.input for t in problem.tests],
        mode=mode,
        limits=limits,
        isolation=isolation,
        environment=environment.overrides(),
        **fields,
    )
