"""Decoding the JSON of call-based values (return values and expected outputs), totally.

The sandbox's strict encoder writes a return value as JSON text (with ``NaN``/``Infinity``
and integers of any size, as Python's :mod:`json` writes them); problem files hold expected
values as JSON text. Whatever a program returns must become a verdict, so :func:`decode`
accepts any ``str`` and either returns plain data or raises ``ValueError`` with a short
reason. Never anything else: not ``RecursionError`` for a list nested 300,000 deep, not an
hour of CPU for an integer of millions of digits.

* **Any depth.** Texts nested deeper than :data:`STDLIB_DEPTH` are decoded by an iterative
  parser (an explicit stack), never by the recursive C scanner of :mod:`json`: a list inside
  a list a few hundred thousand levels deep decodes, and compares, like any other value.
* **Long integers.** An integer literal of more than :data:`INT_DIGITS` digits is not
  converted to ``int`` (CPython's conversion is quadratic: a million digits takes seconds) but
  kept as a :class:`LongInt`, its canonical decimal text, which compares exactly with other
  integers (:func:`evaluator.judges.compare_values`).
* **Same meaning as** ``json.loads``: the same grammar (``NaN``, ``Infinity``, ``-Infinity``
  accepted, control characters in strings refused), the same floats, the last of duplicate
  keys wins, lone surrogate escapes (``"\\ud800"``) kept.
"""

from __future__ import annotations

import json
import re
import sys
from itertools import accumulate
from json.decoder import scanstring
from typing import Any

import orjson

__all__ = ["INT_DIGITS", "STDLIB_DEPTH", "LongInt", "decode"]

INT_DIGITS = 4000  # longer integer literals stay text (LongInt); CPython refuses > 4300 anyway
STDLIB_DEPTH = 400  # deeper texts are parsed iteratively, never by json's recursive scanner

_LONG_DIGIT_RUN = re.compile(r"[0-9]{19}")  # orjson turns integers beyond 64 bits into floats
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_WHITESPACE = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"(-?(?:0|[1-9][0-9]*))(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_CONSTANTS = {
    "null": None,
    "true": True,
    "false": False,
    "NaN": float("nan"),
    "Infinity": float("inf"),
    "-Infinity": float("-inf"),
}
_CONSTANT = re.compile("|".join(re.escape(name) for name in sorted(_CONSTANTS, key=len)[::-1]))
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


class LongInt:
    """An integer too long to convert cheaply, as its canonical decimal text (``-`` and the
    digits, no leading zeros): what a JSON integer literal of more than :data:`INT_DIGITS`
    digits decodes to. Equal to another :class:`LongInt` exactly when the texts are equal."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    @property
    def digits(self) -> int:
        """How many decimal digits (the sign not counted)."""
        return len(self.text) - self.text.startswith("-")

    def __eq__(self, other: object) -> bool:
        return type(other) is LongInt and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)

    def __repr__(self) -> str:
        return f"<int of {self.digits} digits>"

    def to_int(self) -> int:
        """The ``int`` (divide and conquer over 3,000-digit pieces: about a second per
        million digits, where ``int(str)`` is quadratic). Only for comparing with an ``int``
        given through the library API; decoded values never need it."""
        return _digits_to_int(self.text)


def _digits_to_int(text: str) -> int:
    if text.startswith("-"):
        return -_digits_to_int(text[1:])
    if len(text) <= 3000:
        return int(text)
    low = len(text) // 2
    return _digits_to_int(text[:-low]) * 10**low + _digits_to_int(text[-low:])


def _integer(text: str) -> int | LongInt:
    """``int(text)`` for a JSON integer literal; a :class:`LongInt` when it is long (or over
    the interpreter's int/str digit limit, which the host may have lowered)."""
    limit = sys.get_int_max_str_digits()
    digits = len(text) - text.startswith("-")
    if digits > INT_DIGITS or (limit and digits > limit):
        return LongInt(text)
    return int(text)


def decode(text: str) -> Any:
    """The value of the JSON ``text`` (rules in the module docstring). Raises ``ValueError``
    with a one-line reason, and nothing else, for text that is not JSON."""
    if type(text) is not str:
        raise ValueError(f"expected JSON text, got {type(text).__name__}")
    if _LONG_DIGIT_RUN.search(text) is None:
        try:
            return orjson.loads(text)  # fast; depth-limited to 1024 without recursing in C
        except (orjson.JSONDecodeError, TypeError, ValueError):
            pass  # NaN, 1e999, lone surrogates, deep nesting, bad JSON: decided below
    try:
        if nesting_bound(text) <= STDLIB_DEPTH:
            try:
                return json.loads(text, parse_int=_integer)
            except RecursionError:  # a host with a low recursion limit: go iterative
                pass
        return _decode_iteratively(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{exc.msg.removesuffix(' at')} at char {exc.pos}") from None
    except (ValueError, OverflowError, MemoryError, RecursionError) as exc:
        raise ValueError(f"{type(exc).__name__}: {str(exc)[:100]}") from None


def nesting_bound(text: str) -> int:
    """An upper bound of how deep arrays and objects nest in ``text`` (strings skipped):
    exact for valid JSON, cheap (a bracket count) when that is already small."""
    outside = _STRING.sub("", text)
    opened = outside.count("[") + outside.count("{")
    if opened <= STDLIB_DEPTH:
        return opened
    return max(accumulate(map(_STEP.__getitem__, _NOT_BRACKETS.sub("", outside))), default=0)


def _skip(text: str, pos: int) -> int:
    return _WHITESPACE.match(text, pos).end()  # type: ignore[union-attr]  # matches ""


def _error(message: str, text: str, pos: int) -> json.JSONDecodeError:
    return json.JSONDecodeError(message, text, pos)


def _key(text: str, pos: int) -> tuple[str, int]:
    """An object key and its colon at ``pos``; the position of the value after them."""
    if not text.startswith('"', pos):
        raise _error("Expecting property name enclosed in double quotes", text, pos)
    key, pos = scanstring(text, pos + 1, True)
    pos = _skip(text, pos)
    if not text.startswith(":", pos):
        raise _error("Expecting ':' delimiter", text, pos)
    return key, _skip(text, pos + 1)


def _scalar(text: str, pos: int) -> tuple[Any, int]:
    """The string, number or constant at ``pos`` and the position after it."""
    if text.startswith('"', pos):
        return scanstring(text, pos + 1, True)
    number = _NUMBER.match(text, pos)
    if number is not None:
        integer, fraction, exponent = number.groups()
        if fraction is None and exponent is None:
            return _integer(integer), number.end()
        return float(number.group()), number.end()
    constant = _CONSTANT.match(text, pos)
    if constant is not None:
        return _CONSTANTS[constant.group()], constant.end()
    raise _error("Expecting value", text, pos)


def _decode_iteratively(text: str) -> Any:
    """``json.loads`` with an explicit stack instead of recursion (any depth)."""
    containers: list[list[Any] | dict[str, Any]] = []
    keys: list[str] = []  # the pending key of each open object, in step with the dicts
    pos = _skip(text, 0)
    while True:
        opening = text[pos : pos + 1]
        if opening == "[":
            pos = _skip(text, pos + 1)
            if not text.startswith("]", pos):
                containers.append([])
                continue
            value: Any = []
            pos += 1
        elif opening == "{":
            pos = _skip(text, pos + 1)
            if not text.startswith("}", pos):
                key, pos = _key(text, pos)
                containers.append({})
                keys.append(key)
                continue
            value = {}
            pos += 1
        else:
            value, pos = _scalar(text, pos)
        while True:  # place the value; close every container that ends here
            pos = _skip(text, pos)
            if not containers:
                if pos != len(text):
                    raise _error("Extra data", text, pos)
                return value
            top = containers[-1]
            if type(top) is list:
                top.append(value)
                closer = "]"
            else:
                top[keys.pop()] = value
                closer = "}"
            if text.startswith(",", pos):
                pos = _skip(text, pos + 1)
                if closer == "}":
                    key, pos = _key(text, pos)
                    keys.append(key)
                break  # the next item's value
            if not text.startswith(closer, pos):
                raise _error("Expecting ',' delimiter", text, pos)
            value = containers.pop()
            pos += 1
