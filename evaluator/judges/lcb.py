"""``lcb``: LiveCodeBench's stdio comparison, for comparison runs against its verdicts.

Semantics (LiveCodeBench's documented stdio check, written from its description):

1. The whole output and the whole expected output are stripped (:meth:`str.strip`: Python's
   notion of whitespace, so non-ASCII spaces such as U+00A0 count too), split on ``\\n``, and
   every line is stripped the same way.
2. The two lists must have the same number of lines.
3. Line *i* matches when the stripped strings are equal, or else when both lines split
   (:meth:`str.split`) into the same number of tokens, every token of both parses as a
   :class:`decimal.Decimal`, and the tokens are equal as Decimals, pairwise: exact, no
   tolerance. ``1.0`` equals ``1``, ``1e3`` equals ``1000``, ``-0`` equals ``0``,
   ``1_000`` equals ``1000`` (Decimal's syntax); ``0.333333`` does NOT equal ``0.3333333``.
   ``NaN`` (quiet or signalling) never equals anything as a Decimal (only as an identical
   string); ``Infinity``/``inf`` are Decimals and equal each other.

Differences from ``lines`` (the project's default), all places where ``lcb`` accepts more:

* leading whitespace of every line is ignored (``' 5'`` equals ``'5'``);
* leading empty lines are ignored as well as trailing ones (``'\\n5'`` equals ``'5'``);
* inner spacing between numbers is ignored (``'1  2'`` equals ``'1 2'``), but not between
  words (``'a  b'`` differs from ``'a b'``, as in ``lines``);
* numbers equal as Decimals are accepted (``1.0`` for ``1``, ``1e2`` for ``100``, ``+5`` for
  ``5``) where ``lines`` wants the same text;
* non-ASCII whitespace is stripped/split on.

It is stricter than the ``float`` judge: no tolerance at all, so a correct floating-point
answer printed with different digits (``0.3333333`` for ``0.333333``) is rejected, which is
exactly how LiveCodeBench falsely fails programs on problems that allow an error. Never a
default: it exists to reproduce LiveCodeBench's verdicts.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from .base import ACCEPTED, Comparison, count_mismatch, differs


def normalise(text: str) -> list[str]:
    """``text`` stripped, split on ``\\n``, every line stripped (LiveCodeBench's line list)."""
    return [line.strip() for line in text.strip().split("\n")]


def decimals(line: str) -> list[Decimal] | None:
    """The whitespace-separated tokens of ``line`` as Decimals; None when one does not parse."""
    try:
        return [Decimal(token) for token in line.split()]
    except (InvalidOperation, ValueError):
        return None


def same_numbers(got: str, expected: str) -> bool:
    """Both lines are the same count of tokens, all Decimals, equal pairwise (NaN never is)."""
    a, b = decimals(got), decimals(expected)
    if a is None or b is None or len(a) != len(b):
        return False
    # compare_total would order NaNs; ``==`` is what is wanted, but it raises on sNaN.
    return all(not x.is_nan() and not y.is_nan() and x == y for x, y in zip(a, b, strict=True))


def check(output: str, expected: str) -> Comparison:
    """Accept iff the normalised line lists have the same length and every line pair is equal
    as strings or as lists of Decimals (see the module docstring).

    Messages: ``line 3: expected '5', got '4'``, ``output ended after 2 lines, expected 3``,
    ``output has 4 lines, expected 3; extra line 4: '7'`` (line numbers count after the
    leading empty lines are stripped).
    """
    if output == expected:
        return ACCEPTED
    got, want = normalise(output), normalise(expected)
    if len(got) != len(want):
        return count_mismatch("line", got, want)
    for index, (g, e) in enumerate(zip(got, want, strict=True)):
        if g != e and not same_numbers(g, e):
            return differs("line", index, e, g)
    return ACCEPTED
