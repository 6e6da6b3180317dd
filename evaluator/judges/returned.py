"""How a call-based test's return value is compared with its expected value.

The sandbox's strict encoder writes the return value as JSON text (:mod:`evaluator.harness.call`
feeds the call and reads it back); here it is decoded by :mod:`.jsonvalue` and compared by
:func:`~evaluator.judges.values.compare_values`: the candidate's objects never reach an ``==``.
Judging is total: whatever text comes back (nested to any depth, integers of millions of
digits, not JSON at all), :func:`judge_return` returns a verdict with a short message and
raises nothing."""

from __future__ import annotations

import json
import threading
from dataclasses import replace
from typing import Any

from evaluator.harness.outcome import failure
from evaluator.problem import TestCase, Verdict
from evaluator.sandbox import RunResult

from .base import cap
from .floats import DEFAULT_ABS_TOL, DEFAULT_REL_TOL, validate_tolerances
from .jsonvalue import decode
from .values import compare_values

__all__ = ["canonical", "judge_printed", "judge_return", "loads"]


def loads(text: str) -> Any:
    """JSON as the sandbox's encoder writes it: any depth, integers of any size (see
    :mod:`evaluator.judges.jsonvalue`). Raises ``ValueError`` only."""
    return decode(text)


def judge_return(test: TestCase, run: RunResult, tolerance: dict[str, Any]) -> tuple[Verdict, str]:
    """The verdict of one call-based test; never raises (a broken expected value is an
    ERROR, an unreadable return value a WA: it is the program's output).

    ``tolerance`` holds :func:`~evaluator.judges.values.compare_values`' options and
    ``unwrap``: an expected value that is a one-element list ``[x]`` then also accepts ``x``
    (APPS and TACO store call-based outputs wrapped so; their graders accept either)."""
    tolerance = dict(tolerance)
    unwrap = bool(tolerance.pop("unwrap", False))
    failed = failure(run)
    if failed is not None:
        return failed
    if run.status == "error" or run.value is None:  # e.g. returned a set or a custom object
        return Verdict.WA, cap(str(run.exception or "no return value"))
    if run.value == canonical(test.output):  # the same text: the same value, whatever the rule
        try:
            validate_tolerances(
                tolerance.get("abs_tol", DEFAULT_ABS_TOL), tolerance.get("rel_tol", DEFAULT_REL_TOL)
            )
        except (TypeError, ValueError) as exc:  # normally refused before anything runs
            return Verdict.ERROR, cap(f"judge options: {exc}")
        return Verdict.AC, ""
    try:
        expected = loads(test.output)
    except ValueError as exc:
        return Verdict.ERROR, cap(f"expected output is not JSON: {exc}")
    try:
        actual = loads(run.value)
    except ValueError as exc:  # the strict encoder writes valid JSON: a harness bug
        return Verdict.ERROR, cap(f"unreadable return value: {exc}")
    try:
        comparison = compare_values(actual, expected, **tolerance)
        wrapped = unwrap and type(expected) is list and len(expected) == 1
        if not comparison.ok and wrapped and compare_values(actual, expected[0], **tolerance).ok:
            return Verdict.AC, ""
    except TypeError as exc:
        return Verdict.ERROR, cap(f"expected output is not plain data: {exc}")
    except ValueError as exc:  # tolerances, normally refused before anything runs
        return Verdict.ERROR, cap(f"judge options: {exc}")
    return (Verdict.AC, "") if comparison.ok else (Verdict.WA, comparison.message)


def judge_printed(test: TestCase, run: RunResult, tolerance: dict[str, Any]) -> tuple[Verdict, str]:
    """The verdict of one call-based test whose program printed the return value's JSON on
    stdout (a compiled language's driver, :mod:`evaluator.harness.native_call`), judged as
    :func:`judge_return` judges a value; never raises."""
    failed = failure(run)
    if failed is not None:
        return failed
    printed = run.stdout.decode("utf-8", "surrogateescape").strip()
    if not printed:
        return Verdict.WA, "no return value"
    try:
        loads(printed)
    except ValueError as exc:  # the program wrote where the driver writes: its output
        return Verdict.WA, cap(f"the printed return value is not JSON: {exc}")
    return judge_return(test, replace(run, value=printed), tolerance)


def canonical(expected: str) -> str | None:
    """``expected`` written as the sandbox's encoder writes a return value (compact JSON,
    ASCII, ``NaN``/``Infinity``), or None when it cannot be (not JSON, integers too long,
    nested too deep). A return value with the same text is the same value: equal under every
    comparison rule, so the common case of a right answer needs no decoding at all. Cached by
    text (a problem's expected outputs are judged once per sample), within a bound on size."""
    found = _CANONICAL.get(expected, _MISSING)
    if found is not _MISSING:
        return found
    try:
        text = json.dumps(decode(expected), allow_nan=True, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):  # LongInt, not JSON, very deep
        text = None
    with _CANONICAL_LOCK:
        global _CANONICAL_SIZE
        if _CANONICAL_SIZE + 2 * len(expected) > _CANONICAL_BOUND:
            _CANONICAL.clear()
            _CANONICAL_SIZE = 0
        _CANONICAL[expected] = text
        _CANONICAL_SIZE += 2 * len(expected)
    return text


_MISSING = object()
_CANONICAL: dict[str, str | None] = {}
_CANONICAL_SIZE = 0
_CANONICAL_BOUND = 64 << 20  # characters kept (expected texts and their canonical forms)
_CANONICAL_LOCK = threading.Lock()
