"""``lenient``: the MicroCoder paper's chain of fallback comparisons. ACCEPTS WRONG ANSWERS.

!!! WARNING !!! This judge exists ONLY to reproduce the paper's reported pass rates. It is never
a default and must not be used to decide whether a program is correct. Known wrong answers it
accepts, each pinned by a test:

* ``1 2`` for ``2 1`` and ``1 1`` for ``1`` (set comparison ignores order and repetition);
* ``0.1234`` for ``0.1231`` (rounding to 3 decimals);
* ``1000000007`` for ``1000000000`` (relative tolerance 1e-5 applied to integers);
* ``[1, 2]`` or ``(1, 2)`` for ``1 2`` (brackets and commas are dropped).

It still rejects ``YES`` for ``NO``, ``Alice`` for ``Bob`` and a strict prefix such as ``1``
for ``1\\n2\\n3``.

The chain, tried in order; the first rule that holds accepts (the paper's description, from
its text; the exact code was not published, so this is a reconstruction):

1. ``stripped``: the texts are equal after :meth:`str.strip`.
2. ``lines``: the lists of lines, each :meth:`str.strip`-ped, are equal.
3. ``whitespace``: the lists of :meth:`str.split` tokens are equal.
4. ``containers``: list/tuple/string conversions: the token lists are equal once ``[]()``,
   ``{}``, commas and quotes are treated as whitespace (``[1, 2]`` = ``(1,2)`` = ``1 2``).
5. ``allclose``: the (container-normalised) tokens all parse as floats, are as many, and
   ``|a - b| <= 1e-8 + 1e-5 * |b|`` pairwise, ``b`` expected (``numpy.allclose`` defaults;
   NaN never close).
6. ``rounded``: same, but equal after rounding to 3 decimals.
7. ``set``: the sets of (container-normalised) tokens are equal.

An accepted comparison's message names the rule that held (empty for ``stripped``), so that
reports can count how many answers were accepted only by a lenient rule.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from .base import ACCEPTED, Comparison, compare_sequences, wrong

RTOL = 1e-5  # numpy.allclose default
ATOL = 1e-8  # numpy.allclose default
DECIMALS = 3

_CONTAINER_CHARS = str.maketrans(dict.fromkeys("[](){},'\"", " "))


def _stripped(output: str, expected: str) -> bool:
    return output.strip() == expected.strip()


def _stripped_lines(text: str) -> list[str]:
    return [row.strip() for row in text.strip().splitlines()]


def _lines(output: str, expected: str) -> bool:
    return _stripped_lines(output) == _stripped_lines(expected)


def _whitespace(output: str, expected: str) -> bool:
    return output.split() == expected.split()


def _container_tokens(text: str) -> list[str]:
    return text.translate(_CONTAINER_CHARS).split()


def _containers(output: str, expected: str) -> bool:
    return _container_tokens(output) == _container_tokens(expected)


def _floats(text: str) -> list[float] | None:
    try:
        return [float(token) for token in _container_tokens(text)]
    except ValueError:
        return None


def _numeric(output: str, expected: str, close: Callable[[float, float], bool]) -> bool:
    got, want = _floats(output), _floats(expected)
    if got is None or want is None or len(got) != len(want) or not want:
        return False
    return all(close(g, w) for g, w in zip(got, want, strict=True))


def _isclose(got: float, want: float) -> bool:
    if math.isinf(got) or math.isinf(want):
        return got == want  # numpy: infinities are close only to themselves
    return abs(got - want) <= ATOL + RTOL * abs(want)


def _allclose(output: str, expected: str) -> bool:
    return _numeric(output, expected, _isclose)


def _rounded(output: str, expected: str) -> bool:
    return _numeric(output, expected, lambda g, w: round(g, DECIMALS) == round(w, DECIMALS))


def _set(output: str, expected: str) -> bool:
    return set(_container_tokens(output)) == set(_container_tokens(expected))


RULES: tuple[tuple[str, Callable[[str, str], bool]], ...] = (
    ("stripped", _stripped),
    ("lines", _lines),
    ("whitespace", _whitespace),
    ("containers", _containers),
    ("allclose", _allclose),
    ("rounded", _rounded),
    ("set", _set),
)


def matching_rule(output: str, expected: str) -> str | None:
    """The name of the first rule of the chain that accepts, or ``None``."""
    for name, rule in RULES:
        if rule(output, expected):
            return name
    return None


def check(output: str, expected: str) -> Comparison:
    """Accept iff some rule of the chain holds. CAN ACCEPT WRONG ANSWERS (see the module).

    Accepted: message ``accepted by lenient rule 'set'`` (empty for ``stripped``).
    Rejected: ``no lenient rule matched; `` followed by the first difference of the stripped
    lines, e.g. ``line 1: expected 'NO', got 'YES'``.
    """
    rule = matching_rule(output, expected)
    if rule == "stripped":
        return ACCEPTED
    if rule is not None:
        return Comparison(True, f"accepted by lenient rule {rule!r}")
    first = compare_sequences("line", _stripped_lines(output), _stripped_lines(expected))
    return wrong(f"no lenient rule matched; {first.message}")
