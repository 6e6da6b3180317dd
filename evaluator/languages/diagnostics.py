"""A failed build's compile error in one line, for every compiled language: the limit it
ran into, else the compiler's first error (``file:line:column: error: ...``, javac's
``Main.java:3: error: ...``, rustc's ``error[E0425]: ...``), else its last line."""

from __future__ import annotations

import re
import signal

from .base import Build, Tool, ToolRun, read_program

__all__ = ["CPU_LIMIT_MESSAGE", "compile_failure", "staged_build"]

_ERROR = re.compile(r"\berror\b|undefined reference|multiple definition")
_CPU_LIMIT = "its CPU time limit"
CPU_LIMIT_MESSAGE = f"compilation over {_CPU_LIMIT}"
# What a compiler driver says when a limit stopped one of its programs (g++: cc1plus, as,
# ld), and a JVM's words for its heap.
_LIMITS = (
    ("CPU time limit exceeded", _CPU_LIMIT),
    ("File size limit exceeded", "its output size limit"),
    ("memory exhausted", "its memory limit"),
    ("Cannot allocate memory", "its memory limit"),
    ("out of memory", "its memory limit"),
    ("java.lang.OutOfMemoryError", "its memory limit"),
    ("Killed signal terminated", "its limits (killed)"),
)
# A compiler killed by a limit's signal itself (a JVM's javac has no driver to say so).
_SIGNALS = {
    -signal.SIGXCPU: _CPU_LIMIT,
    -signal.SIGXFSZ: "its output size limit",
    -signal.SIGKILL: "its limits (killed)",
}


def compile_failure(run: ToolRun, output: str, tool: Tool, source: str) -> str:
    """Why the build of ``source`` (its file name, whose own diagnostics an ``#error`` may
    word like a limit) failed, in one line."""
    if run.limit == "wall":
        return f"compilation over its wall-clock limit ({tool.limits.effective_wall_limit:g} s)"
    if run.limit == "stopped":
        return "compilation stopped: the grader is closing"
    if run.status in _SIGNALS:
        return f"compilation over {_SIGNALS[run.status]}"
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    for line in lines:
        if line.startswith(source):  # the program's own diagnostics (an #error, say)
            continue
        for needle, what in _LIMITS:
            if needle in line:
                return f"compilation over {what}"
    first = next((line for line in lines if _ERROR.search(line)), None)
    if first is not None:
        return first[:300]
    if lines:
        return lines[-1][:300]
    return f"compilation failed (exit status {run.status})"


def staged_build(run: ToolRun, tool: Tool, work: str, source: str, produced: str) -> Build:
    """The build of a language whose compiler writes one file its runtime reads (tsc's
    script, iverilog's design): that file, staged for the run under its name, read back
    through the build directory ``work``; or the failure, in one line."""
    output = run.output.decode("utf-8", "replace")
    if run.status != 0 or run.limit is not None:
        message = compile_failure(run, output, tool, source)
        return Build(None, message, output, run.seconds, message == CPU_LIMIT_MESSAGE)
    data, why = read_program(work, produced, tool.limits.output_bytes)
    if data is None:
        return Build(None, f"the build left no program: {produced!r} is {why}", output)
    return Build(None, output=output, seconds=run.seconds, files={produced: data})
