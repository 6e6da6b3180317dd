"""The default limits of a test, written once, below every layer that uses them: the problem
model (:mod:`evaluator.problem`, which exports them), the sandbox's :class:`Limits`, the
grading options and every command's and service's default; and the ceilings of a limit that
data gives (a problem's ``time_limit``/``memory_limit``, a request's, a checker spec's), with
the one rule every reader of such a limit applies (:func:`time_limit_fault`,
:func:`memory_limit_fault`)."""

from __future__ import annotations

__all__ = [
    "DEFAULT_MEMORY_LIMIT",
    "DEFAULT_TIME_LIMIT",
    "MAX_MEMORY_LIMIT",
    "MAX_TIME_LIMIT",
    "memory_limit_fault",
    "time_limit_fault",
]

DEFAULT_TIME_LIMIT = 6.0  # seconds of CPU per test, LiveCodeBench's per-test timeout
DEFAULT_MEMORY_LIMIT = 1024  # MB per program

# The ceilings of a limit read from data. Past them a limit is a mistake or an attack, never
# a contest's: no judge gives a test ten minutes or a program a terabyte. They also keep every
# limit inside what the sandbox can set (``setrlimit`` takes a C long: ``Infinity`` or
# ``1e300`` seconds, ``10**12`` MB, failed inside the child, a correct program's RE).
MAX_TIME_LIMIT = 600.0  # seconds of CPU per test
MAX_MEMORY_LIMIT = 1 << 20  # MB (1 TiB)


def time_limit_fault(seconds: float) -> str | None:
    """Why ``seconds`` cannot be a test's CPU time limit (not a positive number, or over
    :data:`MAX_TIME_LIMIT`: ``Infinity`` is); None when it can. Callers raise their own
    error with it, naming the field."""
    return _fault(seconds, MAX_TIME_LIMIT, f"{MAX_TIME_LIMIT:g} seconds", "seconds")


def memory_limit_fault(megabytes: float) -> str | None:
    """Why ``megabytes`` cannot be a program's memory limit (not a positive number, or over
    :data:`MAX_MEMORY_LIMIT`); None when it can."""
    return _fault(megabytes, MAX_MEMORY_LIMIT, f"{MAX_MEMORY_LIMIT} megabytes (1 TiB)", "megabytes")


def _fault(value: float, ceiling: float, shown: str, unit: str) -> str | None:
    # Comparisons only: NaN fails the first, infinities and ints past a float's range the
    # second (math.isfinite would raise on 10**400).
    given = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
    if not value > 0:
        return f"expected a positive number of {unit}, got {given}"
    if value > ceiling:
        return f"at most {shown}, got {given}"
    return None
