"""``lines``: line by line, forgiving trailing whitespace. The default for stdin problems.

Both texts are split on ``\\n``; each line loses its trailing whitespace (space, tab, ``\\r``,
``\\v``, ``\\f``, so ``\\r\\n`` endings equal ``\\n`` ones); trailing empty lines are dropped;
the remaining lists of lines must be equal.

Compatible with LiveCodeBench's stdio check on everything that matters for a correct program
(trailing spaces, ``\\r\\n``, a missing or extra final newline), stricter where it forgives
things a contest judge would not: LiveCodeBench also strips *leading* whitespace of each line
(``' 5'`` equals ``'5'`` there, not here), leading empty lines and non-ASCII spaces, and retries
unequal lines as ``Decimal`` numbers. Numeric leniency is the ``float`` judge's job, under a
stated tolerance.
"""

from __future__ import annotations

from .base import ACCEPTED, WHITESPACE, Comparison, compare_sequences


def normalise(text: str) -> list[str]:
    """The lines of ``text`` with trailing whitespace and trailing empty lines removed."""
    rows = [row.rstrip(WHITESPACE) for row in text.split("\n")]
    while rows and not rows[-1]:
        rows.pop()
    return rows


def check(output: str, expected: str) -> Comparison:
    """Accept iff ``normalise(output) == normalise(expected)``.

    Messages: ``line 3: expected '5', got '4'``, ``output ended after 2 lines, expected 3``,
    ``output has 4 lines, expected 3; extra line 4: '7'``.
    """
    if output == expected:  # no need to split
        return ACCEPTED
    return compare_sequences("line", normalise(output), normalise(expected))
