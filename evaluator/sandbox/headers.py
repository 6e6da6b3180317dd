"""The result header the fork server streams for each test: the child's report (when the
mode needs one) completed with what the kernel says of the child (``wait4``'s status and
rusage) and which limit, if any, ended the test."""

from __future__ import annotations

import os
import signal
from typing import Any

from evaluator.sandbox.files.memfd import STDERR_KEEP, read_output
from evaluator.sandbox.inside import harness


def with_output(header: dict[str, Any], fds: list[int], limits: dict[str, Any]):
    """The header with what the test wrote on the stdio memfds (then emptied)."""
    out = read_output(fds[1], limits["output_bytes"])
    err = read_output(fds[2], limits["output_bytes"])
    return with_frames(header, out, err, limits)


def with_frames(header: dict[str, Any], out: bytes, err: bytes, limits: dict[str, Any]):
    """The result frames of a test: its header with the truncation flags, its stdout and the
    end of its stderr (where the traceback is)."""
    header["stdout_truncated"] = len(out) >= limits["output_bytes"]
    header["stderr_truncated"] = len(err) > STDERR_KEEP
    err = err[-STDERR_KEEP:]
    if header.get("limit") is None and thread_ran_out_of_memory(err):
        header["limit"] = "memory"
    return header, out, err


def from_exit(report: dict[str, Any] | None, status: int) -> dict[str, Any]:
    """The header of a child that ended: its report if it sent one, else how it died."""
    header = dict(report) if report is not None else {"status": "lost"}
    if report is None:
        if os.WIFSIGNALED(status):
            header["signal"] = os.WTERMSIG(status)
        elif os.WIFEXITED(status):
            header["exit_code"] = os.WEXITSTATUS(status)
    if header.get("status") == "ok":
        header.setdefault("exit_code", 0)
    return header


def from_wait(report: dict[str, Any] | None, status: int) -> dict[str, Any]:
    """The header of a stdin test, from the exit status ``wait4`` gave (the program's own
    word, as a judge takes it: ``os._exit(0)`` after complete output is a clean exit) and
    the name of an uncaught exception from the child's report, when it sent one."""
    if os.WIFSIGNALED(status):
        return {"status": "lost", "signal": os.WTERMSIG(status)}
    code = os.WEXITSTATUS(status)
    extra = {k: report[k] for k in ("exception", "blocked") if report and k in report}
    return harness.script_report(code, extra)


def thread_ran_out_of_memory(stderr: bytes) -> bool:
    """Whether stderr holds a traceback that ends in ``MemoryError``: a thread (or the
    ``threading`` machinery reporting it) ran out of memory. The program hit the memory limit,
    as when its main thread does, though the process went on (with RLIMIT_DATA an allocation
    over the limit fails instead of killing it)."""
    at = stderr.find(b"Traceback (most recent call last):")
    if at < 0:
        return False
    for line in stderr[at:].splitlines():
        if line == b"MemoryError" or line.startswith(b"MemoryError: "):
            return True
    return False


def says_out_of_memory(stderr: bytes, marks: list[str] | None) -> bool:
    """Whether a runtime's stderr holds one of the job's ``memory_marks`` (a JVM's
    ``java.lang.OutOfMemoryError``: its heap, bounded by the memory limit, ran out, and
    the VM ended the program itself)."""
    return any(mark.encode() in stderr for mark in marks or ())


def limit_from(header: dict[str, Any], limits: dict[str, Any]) -> str | None:
    sig = header.get("signal")
    if sig == signal.SIGXCPU or header["cpu_time"] > limits["time_limit"]:
        return "cpu"
    if sig == signal.SIGXFSZ:
        return "output"
    if (
        header.get("exception") == "MemoryError"
        or header["peak_memory_kb"] >= limits["memory_limit"] << 10
    ):
        return "memory"
    return None
