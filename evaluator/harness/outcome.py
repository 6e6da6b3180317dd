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
    Messages are at most 300 characters, whatever the run's stderr or exception holds.

    A program that printed the right answer and then crashed, or exited non-zero, is a
    runtime error: exit status counts (``exit()``/``sys.exit(0)`` are clean)."""
    if run.status == "worker_died":
        return Verdict.ERROR, "the sandbox worker died three times running this test"
    if run.status == "bad_input":
        return Verdict.ERROR, f"broken test: {_short(run.exception)}"
    if run.status == "not_started":
        return Verdict.ERROR, f"the sandbox could not start the program: {_short(run.exception)}"
    if run.limit is not None:
        return _BY_LIMIT.get(run.limit, Verdict.ERROR), _limit_message(run)
    if run.status == "compile":
        return Verdict.RE, _last_line(run.stderr) or "SyntaxError"
    if run.status == "exception":
        message = _last_line(run.stderr) or _short(run.exception) or "exception"
        if run.blocked:
            message += f" (sandbox refused: {_short(run.blocked, 80)})"
        return Verdict.RE, message
    if run.status == "exit" and run.exit_code != 0:
        return Verdict.RE, f"exit status {run.exit_code}"
    if run.status == "lost":
        if run.signal is not None:
            return Verdict.RE, f"killed by {run.signal_name}"
        return Verdict.RE, f"died without reporting (exit status {run.exit_code})"
    return None


def _short(text: object, limit: int = 200) -> str:
    """A child-reported text (an exception, a refused operation) cut to ``limit`` characters:
    messages stay short whatever a program raises."""
    return "" if text is None else str(text)[:limit]


def _limit_message(run: RunResult) -> str:
    if run.limit is LimitHit.WALL:
        return f"wall-clock backstop after {run.wall_time:.2f} s (CPU {run.cpu_time:.2f} s)"
    if run.limit is LimitHit.CPU:
        return f"CPU time {run.cpu_time:.2f} s over the limit"
    if run.limit is LimitHit.MEMORY:
        return f"memory limit (peak {run.peak_memory_kb // 1024} MB)"
    return "output over the limit"


_TAIL_BYTES = 64 << 10  # where the last line of stderr is looked for: a traceback's end


def _last_line(stderr: bytes) -> str:
    """The last non-blank line of ``stderr`` (an exception's ``Type: message``), at most 200
    characters. Only the tail is read, so 64 MB of stderr costs no more than a traceback."""
    tail = bytes(stderr[-_TAIL_BYTES:])
    lines = tail.decode("utf-8", "replace").strip().splitlines()
    return lines[-1][:200] if lines else ""
