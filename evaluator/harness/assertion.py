"""Assertion harness (HumanEval/MBPP): the program and the problem's tests run as one module,
then the harness calls ``check(entry_point)``. A pass needs the harness's own report that
``check`` returned, sent after the asserts with a per-run secret: exit status 0 alone (e.g.
``sys.exit(0)`` before the asserts) is not a pass."""

from __future__ import annotations

from evaluator.problem import Problem, Verdict
from evaluator.sandbox import Isolation, Job, Limits, Mode, RunResult

from .outcome import failure


def program(problem: Problem, completion: str, continues_prompt: bool) -> str:
    """HumanEval's joining: ``prompt + completion``, then the tests. A whole-program sample
    (EvalPlus ``solution``) is used as it is."""
    code = problem.prompt + completion if continues_prompt else completion
    return code + "\n\n" + problem.test_code + "\n"


def build_job(problem: Problem, code: str, limits: Limits, isolation: Isolation) -> Job:
    return Job(
        code=code,
        inputs=[""],
        mode=Mode.ASSERTION,
        func_name=problem.entry_point,
        limits=limits,
        isolation=isolation,
        preamble=False,
    )


def judge(run: RunResult) -> tuple[Verdict, str]:
    failed = failure(run)
    if failed is not None:
        return failed
    if not run.checked:
        return Verdict.RE, "the program exited before check() finished"
    return Verdict.AC, ""
