"""What every judge returns, and the shared pieces: tokenising and wrong-answer messages.

Messages describe the *first* difference only, are 1-based (``line 3``, ``token 7``), show
values with :func:`repr` so that spaces, tabs and ``\\r`` are visible, and never exceed
:data:`MAX_MESSAGE` characters, whatever the size of the outputs.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from itertools import chain

MAX_MESSAGE = 200  # characters in a whole message
MAX_SHOWN = 60  # characters of one value inside a message, before the ellipsis
ELLIPSIS = "…"

# testlib's notion of whitespace (C ``isspace`` in the "C" locale). Other Unicode spaces such as
# U+00A0 are part of a token, as on contest judges: ``1\xa02`` is one token, not ``1 2``.
WHITESPACE = " \t\n\r\x0b\x0c"
_TOKEN = re.compile(r"[^ \t\n\r\x0b\x0c]+")
_PY_ONLY_ASCII_SPACES = "\x1c\x1d\x1e\x1f"  # whitespace to str.split(), not to testlib


@dataclass(frozen=True, slots=True)
class Comparison:
    """The outcome of comparing an output with the expected one.

    ``message`` says where the first difference is when ``ok`` is false; it is empty (or a short
    note, see :mod:`evaluator.judges.lenient`) when ``ok`` is true.
    """

    ok: bool
    message: str = ""

    def __bool__(self) -> bool:
        return self.ok


ACCEPTED = Comparison(True)


def split_tokens(text: str) -> list[str]:
    """Split ``text`` on runs of :data:`WHITESPACE`; no empty tokens."""
    # str.split() also splits on U+00A0, U+2003, \x1c..\x1f..., which testlib does not; it is
    # many times faster than the regex, so use it whenever those cannot occur.
    if text.isascii() and not any(sep in text for sep in _PY_ONLY_ASCII_SPACES):
        return text.split()
    return _TOKEN.findall(text)


def common_prefix_length(a: str, b: str) -> int:
    """Length of the longest common prefix of ``a`` and ``b``."""
    # Binary search over slice comparisons: done in C, fast on outputs of megabytes, where a
    # character-by-character Python loop is not.
    low, high = 0, min(len(a), len(b))
    while low < high:
        mid = (low + high + 1) // 2
        if a[low:mid] == b[low:mid]:
            low = mid
        else:
            high = mid - 1
    return low


def shorten(text: str, limit: int = MAX_SHOWN) -> str:
    """``text`` cut to ``limit`` characters, the last being an ellipsis when cut."""
    if len(text) <= limit:
        return text
    return text[: max(limit - 1, 0)] + ELLIPSIS


def show(value: str, limit: int = MAX_SHOWN) -> str:
    """``value`` quoted with :func:`repr` (whitespace visible), shortened first."""
    return repr(shorten(value, limit))


def cap(message: str) -> str:
    """``message`` cut to :data:`MAX_MESSAGE` characters."""
    return shorten(message, MAX_MESSAGE)


def wrong(message: str) -> Comparison:
    """A rejection with a capped message."""
    return Comparison(False, cap(message))


def differs(unit: str, index: int, expected: str, got: str, note: str = "") -> Comparison:
    """Rejection for the first differing item, e.g. ``line 3: expected '5', got '4'``.

    ``index`` is 0-based; the message is 1-based.
    """
    suffix = f" ({note})" if note else ""
    return wrong(f"{unit} {index + 1}: expected {show(expected)}, got {show(got)}{suffix}")


def plural(count: int, unit: str) -> str:
    """``1 line``, ``2 lines``."""
    return f"{count} {unit}" if count == 1 else f"{count} {unit}s"


def count_mismatch(unit: str, got: list[str], expected: list[str]) -> Comparison:
    """Rejection when one sequence is a prefix of the other.

    ``output ended after 2 lines, expected 3`` or
    ``output has 4 tokens, expected 3; extra token 4: '7'``.
    """
    if len(got) < len(expected):
        return wrong(f"output ended after {plural(len(got), unit)}, expected {len(expected)}")
    extra = len(expected)
    return wrong(
        f"output has {plural(len(got), unit)}, expected {len(expected)}; "
        f"extra {unit} {extra + 1}: {show(got[extra])}"
    )


def compare_sequences(unit: str, got: list[str], expected: list[str]) -> Comparison:
    """Items equal one by one (exact string equality), reporting the first difference."""
    if got == expected:
        return ACCEPTED
    for index, (g, e) in enumerate(zip(got, expected, strict=False)):
        if g != e:
            return differs(unit, index, e, g)
    return count_mismatch(unit, got, expected)


def compare_multisets(unit: str, got: list[str], expected: list[str]) -> Comparison:
    """Items equal as multisets (the same items, as many times each, in any order).

    The rejection names the first item whose count differs, looking through ``expected`` in
    its order, then through ``got``: ``token '3': 1 occurrence, expected 2 (output has
    2 tokens, expected 3)``, ``line '7': 1 occurrence, expected 0``.
    """
    have, need = Counter(got), Counter(expected)
    if have == need:
        return ACCEPTED
    # the counters differ, so some item's counts do
    item = next(i for i in chain(expected, got) if have[i] != need[i])
    note = ""
    if len(got) != len(expected):
        note = f" (output has {plural(len(got), unit)}, expected {len(expected)})"
    return wrong(
        f"{unit} {show(item)}: {plural(have[item], 'occurrence')}, expected {need[item]}{note}"
    )
