"""``debug_asserts``: a test program passes when its stderr reports neither a failed
``Debug.Assert`` (``System.Diagnostics.DefaultTraceListener.Fail``) nor an unhandled exception
(``Unhandled Exception``): MultiPL-E's C# rule (``eval_cs.py``), since Mono exits 0 after a
failed assert and reports it only on stderr, with ``MONO_TRACE_LISTENER=Console.Error``
(the ``csharp_assert`` language sets it). It reads stdout and stderr joined
(:attr:`READS`), as ``no_error`` does; a run that crashed or hit a limit fails before it."""

from __future__ import annotations

from .base import ACCEPTED, Comparison, wrong

READS = ("stdout", "stderr")
MARKS = ("System.Diagnostics.DefaultTraceListener.Fail", "Unhandled Exception")


def check(output: str, expected: str) -> Comparison:
    """Accept an output that has neither mark; else say which and where."""
    for mark in MARKS:
        at = output.find(mark)
        if at >= 0:
            line = output[output.rfind("\n", 0, at) + 1 :].split("\n", 1)[0].strip()
            return wrong(f"{mark!r} reported: {line[:150]!r} (their rule fails it)")
    return ACCEPTED


check.reads = READS  # type: ignore[attr-defined]
