"""Numbers and options as the pages say them: words, not Python reprs (``environment=None``
reads "each problem's own"), and the limits the problems ran with."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from evaluator.summary import fixed

__all__ = [
    "LIMIT_NAMES",
    "fixed",
    "limit_endings",
    "limits_text",
    "option_name",
    "option_rows",
    "option_value",
    "seconds",
    "size_text",
]

_NAMES = {
    "time_limit": "time limit (problems without their own)",
    "memory_limit": "memory limit (problems without their own)",
    "judge": "output judge (problems without their own)",
    "isolation": "isolation",
    "environment": "interpreter environment",
    "profile": "sandbox profile",
    "early_exit": "stop at the first failing test",
}
_UNITS = {"time_limit": " s CPU per test", "memory_limit": " MB"}
_NONE = {"environment": "each problem's own, else its platform's"}


# the limit that ended a test, as the sandbox records it (a test's "limit"), in words
# (``LIMIT_NAMES`` in report.js)
LIMIT_NAMES = {
    "cpu": "CPU time limit",
    "wall": "wall-clock backstop",
    "memory": "memory limit",
    "output": "output limit",
}


def limit_endings(limits: Iterable[str]) -> str:
    """Which limits ended a verdict's samples, most first: ``6 by the wall-clock backstop, 2
    by the CPU time limit``; '' when none is recorded."""
    counts = Counter(limit for limit in limits if limit)
    ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return ", ".join(f"{n} by the {LIMIT_NAMES.get(limit, limit)}" for limit, n in ordered)


def option_name(name: str) -> str:
    """A grading option's name in words: ``judge`` is "output judge (problems without their
    own)"; an unknown one with its underscores as spaces."""
    return _NAMES.get(name, name.replace("_", " "))


def option_value(name: str, value: Any) -> str:
    """A grading option's value in words: ``6 s CPU per test``, ``yes``, ``none``..."""
    if value is None:
        return _NONE.get(name, "none")
    if isinstance(value, bool):
        return "yes" if value else "no: every test runs" if name == "early_exit" else "no"
    if isinstance(value, float | int):
        return f"{value:g}{_UNITS.get(name, '')}"
    if isinstance(value, list | tuple):
        return ", ".join(option_value("", v) for v in value) or "none"
    return str(value)


def option_rows(options: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(name, value)`` in words for each grading option."""
    return [(option_name(name), option_value(name, value)) for name, value in options.items()]


def limits_text(values: Iterable[float], unit: str) -> str:
    """The limits problems ran with: ``1 s CPU per test (all 8 problems)``, or each value
    with its problem count, most problems first: ``1 s (5 problems), 2 s (3 problems)``."""
    counts = Counter(values)
    total = sum(counts.values())
    if len(counts) == 1:
        ((value, _),) = counts.items()
        every = "the problem" if total == 1 else f"all {total} problems"
        return f"{value:g} {unit} ({every})"
    ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return ", ".join(f"{value:g} {unit} ({n} problem{'s' * (n != 1)})" for value, n in ordered)


def seconds(value: float | None) -> str:
    """CPU time as the problem table shows it: ``12.3 ms`` below a second, else ``1.04 s``
    (``seconds`` in table.js)."""
    if value is None:
        return "-"
    return f"{fixed(1000 * value, 1)} ms" if value < 1 else f"{fixed(value, 2)} s"


def size_text(count: int) -> str:
    """A byte count: ``12,345 bytes``."""
    return f"{count:,} byte{'s' * (count != 1)}"
