"""stdin/stdout harness (LiveCodeBench ``testtype: "stdin"``): the program runs as
``__main__`` with the test's input on a real fd 0; its stdout is compared by a judge
(:mod:`evaluator.judges.stdout`). A compiled language's program (:mod:`evaluator.languages`)
is its built file, run as ``./solution < input`` (:func:`build_program_job`)."""

from __future__ import annotations

from evaluator.languages import Build, Language
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


def build_program_job(problem: Problem, build: Build, language: Language, limits: Limits) -> Job:
    """A built program on every test's input, a fresh process per test (a program file runs
    once per input, as a judge runs it); the verdict from its exit status and stdout."""
    assert build.binary is not None
    return Job(
        code="",
        inputs=[t.input for t in problem.tests],
        mode=Mode.STDIN,
        limits=limits,
        isolation=Isolation.TEST,
        executable=build.binary,
        argv=language.argv(),
    )
