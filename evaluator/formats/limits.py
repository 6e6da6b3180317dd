"""Time and memory limits as sources write them, read into the problem's units (CPU seconds
per test, megabytes), each within its ceiling (:mod:`evaluator.default_limits`)."""

from __future__ import annotations

import math
import re
from typing import Any

from .errors import InputError
from .fields import checked_memory_limit, checked_time_limit, describe_type

__all__ = ["megabytes", "seconds"]

_AMOUNT = re.compile(r"\s*([0-9]+(?:\.[0-9]*)?|\.[0-9]+)\s*([a-zA-Z ]*?)\s*\.?\s*$")
_SECONDS = {"": 1.0, "s": 1.0, "sec": 1.0, "secs": 1.0, "second": 1.0, "seconds": 1.0,
            "ms": 1e-3, "millisecond": 1e-3, "milliseconds": 1e-3}  # fmt: skip
_MEGABYTES = {"": 1.0, "mb": 1.0, "megabyte": 1.0, "megabytes": 1.0, "mib": 1.0,
              "m": 1.0, "kb": 1 / 1024, "kilobytes": 1 / 1024, "gb": 1024.0,
              "gigabyte": 1024.0, "gigabytes": 1024.0, "gib": 1024.0}  # fmt: skip
_NONE = frozenset({"", "none", "null", "nan", "n/a", "-"})


def seconds(value: Any, field: str) -> float | None:
    """A time limit: a number of seconds, or a text such as ``"1 second"``, ``"2.5 seconds"``,
    ``"500 ms"`` (TACO's). None when absent (``None``, ``""``, ``"None"``); an InputError
    naming ``field`` when not positive or past the ceiling."""
    amount = _amount(value, field, _SECONDS, "seconds")
    return None if amount is None else checked_time_limit(amount, field)


def megabytes(value: Any, field: str) -> int | None:
    """A memory limit in whole megabytes (rounded up): a number of megabytes, or a text such
    as ``"256 megabytes"``, ``"1 gigabyte"``. None when absent."""
    amount = _amount(value, field, _MEGABYTES, "megabytes")
    if amount is None:
        return None
    checked_memory_limit(amount, field)  # before rounding: math.ceil(inf) would raise
    return max(1, math.ceil(amount - 1e-9))


def _amount(value: Any, field: str, units: dict[str, float], unit: str) -> float | None:
    if value is None or (isinstance(value, str) and value.strip().lower() in _NONE):
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise InputError(
            f"expected a number of {unit} or a text, got {describe_type(value)}", field=field
        )
    if isinstance(value, str):
        match = _AMOUNT.match(value)
        scale = units.get(match.group(2).strip().lower()) if match else None
        if match is None or scale is None:
            raise InputError(f"cannot read {value!r} as a number of {unit}", field=field)
        number = float(match.group(1)) * scale
    else:
        number = float(value) if isinstance(value, float) or abs(value) < 2**1000 else math.inf
    return number  # checked by the caller, in its unit: positive, within the ceiling
