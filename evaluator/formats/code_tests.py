"""Problems whose tests are code run once with the answer, as the readers of such sources
build them: the one place they become a :class:`~evaluator.problem.Problem` (as
:meth:`~evaluator.formats.testlists.DecodedTests.problem` is for tests decoded from a row),
so that a field such a row can give is added here once.

* **A tests function** (HumanEval's and MBPP's ``check(candidate)``, LeetCode sets' asserts,
  KodCode's pytest functions): the assertion harness runs the answer, then calls the
  function with its entry point; one run, passed when nothing raises.
* **A test program** (HumanEval-X, MultiPL-E, LiveCodeBench-CPP's ``main``): the answer and
  its tests joined into one program, run once with no input and judged by the source's rule
  (its exit status, or its silence).

Their one test is empty: it stands for that run (a problem with no test passes nothing).
"""

from __future__ import annotations

from typing import Any

from ..problem import Harness, Problem, TestCase

__all__ = ["joined_program_problem", "tests_function_problem"]


def tests_function_problem(
    problem_id: str,
    *,
    test_code: str,
    entry_point: str,
    prompt: str = "",
    time_limit: float | None = None,
    memory_limit: int | None = None,
    metadata: dict[str, Any] | None = None,
    environment: str | None = None,
    runs: bool = True,
) -> Problem:
    """An assertion problem: ``test_code`` defines the tests function, called with the
    answer's ``entry_point``. ``runs``: False when the row has no test at all (the problem
    then has no test, and grading says so)."""
    return Problem(
        id=problem_id,
        harness=Harness.ASSERTION,
        tests=[TestCase("", "")] if runs else [],
        prompt=prompt,
        test_code=test_code,
        entry_point=entry_point,
        time_limit=time_limit,
        memory_limit=memory_limit,
        metadata=metadata if metadata is not None else {},
        environment=environment,
    )


def joined_program_problem(
    problem_id: str,
    *,
    judge: str,
    prompt: str = "",
    time_limit: float | None = None,
    memory_limit: int | None = None,
    metadata: dict[str, Any] | None = None,
) -> Problem:
    """A test program's problem: the answer joined with its tests (by the grader, from the
    problem's facts) runs once on no input, judged by ``judge`` (``exit``: its status;
    ``silent``: nothing printed either)."""
    return Problem(
        id=problem_id,
        harness=Harness.STDIN,
        tests=[TestCase("", "")],
        prompt=prompt,
        judge=judge,
        time_limit=time_limit,
        memory_limit=memory_limit,
        metadata=metadata if metadata is not None else {},
    )
