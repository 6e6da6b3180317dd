"""stdin/stdout harness (LiveCodeBench ``testtype: "stdin"``): the program runs as
``__main__`` with the test's input on a real fd 0; its stdout is compared by a judge."""

from __future__ import annotations

from evaluator.judges import Judge
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
        mode=Mode.STDIN,
        limits=limits,
        isolation=isolation,
        preamble=environment.stdin_preamble,
        environment=environment.overrides(),
    )


def judge(test: TestCase, run: RunResult, check: Judge) -> tuple[Verdict, str]:
    failed = failure(run)
    if failed is not None:
        return failed
    output = run.stdout.decode("utf-8", "surrogateescape")
    comparison = check(output, test.output)
    return (Verdict.AC, "") if comparison.ok else (Verdict.WA, comparison.message)
