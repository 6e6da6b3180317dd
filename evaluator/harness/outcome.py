"""Verdicts every harness shares: what a run's limits, exit and signals say before any
output is compared."""

from __future__ import annotations

from evaluator.problem import Verdict
from evaluator.sandbox import LimitHit, RunResult

_BY_LIMIT = {
    LimitHit.CPU: Verdict.TLE,
    LimitHit.WALL: Verdict.TLE,
    LimitHit.MEMORY: Verdict.MLE,
    LimitHit.OUTPUT: Verdict.OLE,
}


def failure(run: RunResult) -> tuple[Verdict, str] | None:
    """The verdict of a run that did not end cleanly, or None when its answer should be judged.

    A program that printed the right answer and then crashed, or exited non-zero, is a
    runtime error: exit status counts (``exit()``/``sys.exit(0)`` are clean)."""
    if run.status == "worker_died":
        return Verdict.ERROR, "the sandbox worker died three times running this test"
    if run.status == "bad_input":
        return Verdict.ERROR, f"broken test: {run.exception}"
    if run.limit is not None:
        return _BY_LIMIT[run.limit], _limit_message(run)
    if run.status == "compile":
        return Verdict.RE, _last_line(run.stderr) or "SyntaxError"
    if run.status == "exception":
        message = _last_line(run.stderr) or run.exception or "exception"
        if run.blocked:
            message += f" (sandbox refused: {run.blocked})"
        return Verdict.RE, message
    if run.status == "exit" and run.exit_code != 0:
        return Verdict.RE, f"exit status {run.exit_code}"
    if run.status == "lost":
        if run.signal is not None:
            return Verdict.RE, f"killed by {run.signal_name}"
        return Verdict.RE, f"died without reporting (exit status {run.exit_code})"
    return None


def _limit_message(run: RunResult) -> str:
    if run.limit is LimitHit.WALL:
        return f"wall-clock backstop after {run.wall_time:.2f} s (CPU {run.cpu_time:.2f} s)"
    if run.limit is LimitHit.CPU:
        return f"CPU time {run.cpu_time:.2f} s over the limit"
    if run.limit is LimitHit.MEMORY:
        return f"memory limit (peak {run.peak_memory_kb // 1024} MB)"
    return "output over the limit"


def _last_line(stderr: bytes) -> str:
    lines = stderr.decode("utf-8", "replace").strip().splitlines()
    return lines[-1][:200] if lines else ""
