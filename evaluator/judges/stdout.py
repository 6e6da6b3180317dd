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
    streams = {"stdout": run.stdout, "stderr": run.stderr}
    # what the judge reads (its ``reads``): stdout, else the streams it names, joined
    read = getattr(check, "reads", ("stdout",))
    output = "".join(streams[name].decode("utf-8", "surrogateescape") for name in read)
    comparison = check(output, test.output)
    return (Verdict.AC, "") if comparison.ok else (Verdict.WA, comparison.message)
