"""How a stdin/stdout test's output is judged: the run's end first (a crash or a limit is
its verdict), then its stdout compared with the expected output by a named judge."""

from __future__ import annotations

from collections.abc import Callable

from evaluator.harness.outcome import failure
from evaluator.problem import TestCase, Verdict
from evaluator.sandbox import RunResult

from .base import Comparison

__all__ = ["judge_stdout"]


def judge_stdout(
    test: TestCase, run: RunResult, check: Callable[[str, str], Comparison]
) -> tuple[Verdict, str]:
    """The verdict of one stdin test under the judge ``check``."""
    failed = failure(run)
    if failed is not None:
        return failed
    output = run.stdout.decode("utf-8", "surrogateescape")
    if getattr(check, "reads_stderr", False):  # a judge of all the program printed
        output += run.stderr.decode("utf-8", "surrogateescape")
    comparison = check(output, test.output)
    return (Verdict.AC, "") if comparison.ok else (Verdict.WA, comparison.message)
